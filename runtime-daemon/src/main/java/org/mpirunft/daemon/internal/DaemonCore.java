package org.mpirunft.daemon.internal;

import static org.mpirunft.common.Names.requireName;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;
import org.mpirunft.common.JobOwner;
import org.mpirunft.daemon.FtdConfig;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * What the daemon does for its clients, its peers and its ranks: launches on this node or relays
 * to the target node's daemon, fans kills out to the job's nodes, turns the scheduler's
 * transitions into orders for this node's ranks ({@link RankOrders}) and into events for the
 * subscribed launcher ({@link JobSubscribers}), passes requests to the scheduler and hands the
 * ranks' reports to {@link RankReports}, runs this node's transparent steps, drains the node,
 * fences it when the group expelled it, and fences a failed node off the MPI runtime.
 */
public final class DaemonCore {
    private static final Logger LOG = Logger.getLogger(DaemonCore.class.getName());

    private final FtdConfig config;
    private final NodeAgent agent;
    private final Membership membership;
    private final PeerClient peers;
    private final SchedulerPort scheduler;
    /** The launchers subscribed to their jobs' events. */
    private final JobSubscribers subscribers;
    private final RuntimeFence fence;
    /** The orders for this node's ranks, on the rank channel once it is served ({@link #serveRanks}). */
    private final RankOrders orders;
    private final NodeFlushes flushes = new NodeFlushes();
    /** What this node's ranks report on the rank channel. */
    private final RankReports rankReports;
    /** Long enough for the reply to leave before the daemon does. */
    private static final Duration RESTART_DELAY = Duration.ofMillis(200);
    private volatile Runnable restartHook;
    private volatile boolean fenced;
    private final NodeDrain drain;
    /** This node's part of transparent jobs; null when the node takes no part (no 'transparent:' in its config). */
    private volatile TransparentNode transparent;
    private volatile TransparentCoordinator coordinator;
    private final JobAccess access;

    DaemonCore(FtdConfig config, NodeAgent agent, Membership membership, PeerClient peers, SchedulerPort scheduler,
               RuntimeFence fence, NodeDrain drain) {
        this.drain = drain;
        this.config = config;
        this.agent = agent;
        this.membership = membership;
        this.peers = peers;
        this.scheduler = scheduler;
        this.fence = fence;
        this.subscribers = new JobSubscribers(scheduler);
        this.orders = new RankOrders(config.node());
        this.rankReports = new RankReports(config.node(), scheduler, agent, flushes, orders, this::peer, this::fenced);
        this.access = new JobAccess(job -> scheduler == null ? Optional.empty() : scheduler.job(job).map(JobRecord::owner));
        if (scheduler != null) {
            if (fence != null) {
                scheduler.onNodeLost(lost -> {
                    if (!lost.name().equals(config.node())) {
                        fence.fence(lost);
                    }
                });
            }
            scheduler.onTransition(this::onTransition);
        }
    }

    /** Serves the rank channel on {@code server}; the daemon's transitions and reports go through it from now on. */
    public void serveRanks(RankServer server) {
        orders.serve(server);
    }

    /** What this node's ranks report on the rank channel, and who may be one ({@link RankReports}). */
    RankReports rankReports() {
        return rankReports;
    }

    /** Takes part in transparent jobs: this node's steps, and the coordination of jobs launched here when it hosts a scheduler. */
    void serveTransparent(TransparentNode node, java.nio.file.Path shared) {
        node.removeLeftLocks();
        this.transparent = node;
        if (scheduler != null) {
            this.coordinator = new TransparentCoordinator(config.node(), scheduler, (target, step) -> target.equals(config.node())
                    ? transparentStep(step) : peer(target, step), shared, node::jobNetwork);
        }
    }

    void closeTransparent() {
        TransparentCoordinator c = coordinator;
        if (c != null) {
            c.close();
        }
    }

    public boolean fenced() {
        return fenced;
    }

    /** Membership events: fence on expulsion, take work again once merged back, fence failed nodes off the runtime. */
    public void onMembershipEvent(MembershipEvent event) {
        switch (event) {
            // With a scheduler, it decides when a failed node is lost (a crashed daemon's node is
            // not, while it may come back) and the fence follows its word (the constructor).
            case MembershipEvent.NodeFailed failed when fence != null && scheduler == null && !failed.member().name().equals(config.node()) ->
                    fence.fence(failed.member());
            case MembershipEvent.Expelled expelled -> {
                fenced = true;
                LOG.warning(config.node() + ": expelled from the group (" + expelled.reason() + ": " + expelled.detail()
                        + "); fencing: killing every job process on this node");
                int killed = agent.kill("");
                LOG.warning(config.node() + ": fenced; killed " + killed + " job process(es)");
            }
            case MembershipEvent.PartitionHealed healed when fenced && healed.view().contains(config.node()) -> {
                fenced = false;
                LOG.info(config.node() + ": merged back into the group in view " + healed.view().id() + "; taking work again");
            }
            default -> {
            }
        }
    }

    /** A local client's request, from {@code caller} (the socket peer's user), once {@link JobAccess} lets it through. */
    ControlReply handle(ControlRequest request, ControlServer.Client client, Caller caller) {
        Optional<String> refusal = access.refusal(request, caller);
        if (refusal.isPresent()) {
            LOG.info(() -> config.node() + ": refused " + request.getClass().getSimpleName() + " from " + caller + ": " + refusal.get());
            return failed(ErrorCode.REFUSED, config.node() + ": " + refusal.get());
        }
        return switch (request) {
            case ControlRequest.Status s -> status(caller);
            case ControlRequest.Launch launch -> launch(launch, access.launchOwner(launch.job(), caller));
            case ControlRequest.Subscribe subscribe -> subscribe(subscribe.job(), client);
            case ControlRequest.KillJob kill -> killJob(kill);
            case ControlRequest.RestartDaemons restart -> restartDaemons(restart);
            case ControlRequest.LauncherStarted started -> {
                requireName("job", started.job());
                try {
                    agent.launcherStarted(started.job(), started.pid());
                    yield ok(config.node() + ": pid " + started.pid() + " is " + started.job() + "'s mpirun");
                } catch (IllegalArgumentException e) {
                    yield failed(ErrorCode.NOT_FOUND, config.node() + ": " + e.getMessage());
                }
            }
            case ControlRequest.RegisterJob register -> forJob(register.job(), () -> {
                if (register.rankNodes().isEmpty()) {
                    throw new IllegalArgumentException("a job needs at least one rank");
                }
                register.rankNodes().forEach(node -> requireName("rank node", node));
                register.spares().forEach(node -> requireName("spare", node));
                if (!register.checkpointDir().isEmpty()) {
                    java.nio.file.Path dir = java.nio.file.Path.of(register.checkpointDir());
                    if (!dir.isAbsolute()) {
                        throw new IllegalArgumentException("checkpoint directory must be absolute, got '" + register.checkpointDir() + "'");
                    }
                }
                TransparentCoordinator transparentJobs = coordinator;
                if (transparentJobs != null && register.mode().equals(RecoveryMode.TRANSPARENT.word())) {
                    // Refused now, not at its first checkpoint, if this node cannot checkpoint it.
                    transparentJobs.accept(caller.user());
                }
                scheduler.registerJob(register.job(), config.node(), register.rankNodes(), register.spares(), register.mode(),
                        register.schedule(), register.maxRestarts(), caller.user());
                return "job " + register.job() + " registered with " + register.rankNodes().size() + " ranks";
            });
            case ControlRequest.FailureReported failure -> forJob(failure.job(), () -> {
                scheduler.failureReported(failure.job(), failure.source(), failure.lostRanks(), failure.lostNodes(), failure.detail(),
                        null);
                return "failure of " + failure.lostRanks() + failure.lostNodes() + " in " + failure.job() + " reported";
            });
            case ControlRequest.RestartNeeded restart -> forJob(restart.job(), () -> {
                scheduler.restartNeeded(restart.job(), restart.source(), restart.reason(), null);
                return "decision about " + restart.job() + " taken";
            });
            case ControlRequest.JobRelaunched relaunched -> forJob(relaunched.job(), () -> {
                scheduler.jobRelaunched(relaunched.job(), relaunched.attempt(), relaunched.rankNodes());
                return "relaunch " + relaunched.attempt() + " of " + relaunched.job() + " recorded";
            });
            case ControlRequest.JobFinished finished -> forJob(finished.job(), () -> {
                TransparentCoordinator transparentJobs = coordinator;
                if (transparentJobs != null) {
                    // Nothing of a finished job is written after its mpirun-ft exits.
                    transparentJobs.jobFinished(finished.job(), config.transparent().map(FtdConfig.Transparent::timeout)
                            .orElse(Duration.ofSeconds(60)).multipliedBy(3));
                }
                scheduler.jobFinished(finished.job());
                subscribers.forget(finished.job());
                return "job " + finished.job() + " finished";
            });
            case ControlRequest.CheckpointNow now -> forJob(now.job(), () -> {
                scheduler.checkpointNow(now.job());
                return "checkpoint of " + now.job() + " ordered";
            });
            case ControlRequest.Migrate migrate -> forJob(migrate.job(), () -> {
                requireName("node", migrate.node());
                long seq = scheduler.migrate(migrate.job(), migrate.node(), migrate.reason());
                return "migration " + seq + " of " + migrate.job() + " off " + migrate.node() + " ordered";
            });
            case ControlRequest.Drain d -> drainNode(d.node(), d.reason(), false);
            case ControlRequest.Resume r -> drainNode(r.node(), "", true);
        };
    }

    /** Requests from other daemons, already authenticated. */
    ControlReply handlePeer(String from, PeerMessage message) {
        return switch (message) {
            case PeerMessage.StartNodeDaemon start -> startHere(start.job(), start.command(), start.owner(), from, start.slurmJob());
            case PeerMessage.KillJobProcesses kill -> ok(config.node() + ": killed " + agent.kill(kill.job()));
            case PeerMessage.RestartDaemon restart -> restartHere(from);
            case PeerMessage.DrainNode d -> drainHere(d.reason(), d.resume());
            case PeerMessage.TransparentStep step -> transparentStep(step);
            case PeerMessage.CallSpares call -> {
                requireName("job", call.call().job());
                orders.deliver(call.call().job(), call.call());
                yield ok(config.node() + ": called warm spare(s) " + call.call().group() + " of " + call.call().job()
                        + " that are on this node");
            }
            default -> failed(ErrorCode.BAD_REQUEST, "not a request: " + message.getClass().getSimpleName());
        };
    }

    /** One step of a transparent job's checkpoint or restore, on this node. */
    private ControlReply transparentStep(PeerMessage.TransparentStep step) {
        requireName("job", step.job());
        TransparentNode node = transparent;
        if (node == null) {
            return failed(ErrorCode.REFUSED, config.node() + " takes no part in transparent jobs (no 'transparent:' in its config)");
        }
        if (fenced) {
            return failed(ErrorCode.FENCED, config.node() + " fenced itself after the group expelled it");
        }
        long start = System.nanoTime();
        try {
            PeerMessage.TransparentPart part = null;
            switch (step.step()) {
                case LOCK -> node.lock(step.job(), step.network());
                case UNLOCK -> node.unlock(step.job());
                case DUMP -> part = node.dump(step.job(), step.epoch(), step.owner());
                case STAGE -> part = node.stage(step.job(), step.epoch(), java.nio.file.Path.of(step.storage()), step.owner(), step.part());
                case STOP -> node.stop(step.job(), step.network());
                case RESTORE -> restoreHere(node, step);
                case PRUNE -> node.prune(step.job(), step.epoch());
            }
            return new ControlReply.StepDone(ControlReply.VERSION, config.node(), step.step(), (System.nanoTime() - start) / 1e6, part);
        } catch (IllegalStateException | IllegalArgumentException e) {
            LOG.warning(config.node() + ": transparent " + step.step() + " of " + step.job() + " failed: " + e.getMessage());
            return failed(ErrorCode.INTERNAL, e.getMessage());
        }
    }

    /**
     * Restores a part here. The launcher node's part is mpirun: restored, it is no longer
     * mpirun-ft's child but ours, so its exit status goes to the job's subscribers.
     */
    private void restoreHere(TransparentNode node, PeerMessage.TransparentStep step) {
        long root = node.restore(step.job(), step.epoch(), java.nio.file.Path.of(step.storage()), step.owner(), step.part());
        boolean launcher = scheduler != null && scheduler.job(step.job()).map(j -> j.launcher().equals(config.node())).orElse(false)
                && step.part().node().equals(config.node());
        if (launcher) {
            agent.launcherStarted(step.job(), root);
            agent.watchExit(root, status -> subscribers.publish(step.job(), new ControlReply.LauncherExited(ControlReply.VERSION,
                    step.job(), root, status)));
        }
    }

    /** The node, the group and the jobs, as {@code caller} may see them: others' jobs without details, and none of their processes. */
    private ControlReply status(Caller caller) {
        ClusterView view = membership.view();
        List<ControlReply.MemberStatus> members = view.members().stream().map(DaemonCore::memberStatus).toList();
        List<ControlReply.JobStatus> jobs = scheduler == null ? List.of() : scheduler.jobs().stream()
                .map(job -> access.maySee(job.job(), caller) ? job : job.withoutDetails()).toList();
        List<ControlReply.ProcessStatus> processes = agent.processes().stream()
                .filter(process -> access.maySee(process.job(), caller)).toList();
        return new ControlReply.StatusReport(ControlReply.VERSION, config.node(), config.role().name().toLowerCase(),
                membership.state() == Membership.State.JOINED, fenced, scheduler == null ? "" : scheduler.leader(), view.id(),
                members, processes, jobs, config.rankSocket().toString(), scheduler == null ? 0 : scheduler.logTerm(),
                scheduler == null ? List.of() : scheduler.logVoters());
    }

    private static ControlReply.MemberStatus memberStatus(Member member) {
        return new ControlReply.MemberStatus(member.name(), member.role().name().toLowerCase(), member.metadata().slots(),
                member.load().slotsInUse(), member.load().loadAverage(), member.metadata().controlEndpoint(), member.load().drain());
    }

    /** Drains {@code node} (or resumes it): here, or through its own daemon, which owns its drain. */
    private ControlReply drainNode(String node, String reason, boolean resume) {
        requireName("node", node);
        if (node.equals(config.node())) {
            return drainHere(reason, resume);
        }
        return peer(node, new PeerMessage.DrainNode(PeerMessage.VERSION, reason == null ? "" : reason, resume));
    }

    private ControlReply drainHere(String reason, boolean resume) {
        if (resume) {
            drain.resume();
            return ok(config.node() + ": back in service" + (drain.reason().isEmpty() ? "" : "; still " + drain.reason()));
        }
        drain.drain(reason);
        return ok(config.node() + ": " + drain.reason());
    }

    private ControlReply launch(ControlRequest.Launch launch, JobOwner owner) {
        requireName("node", launch.node());
        if (!launch.job().isEmpty()) {
            requireName("job", launch.job());
        }
        if (launch.node().equals(config.node())) {
            return startHere(launch.job(), launch.command(), owner, config.node(), launch.slurmJob());
        }
        return peer(launch.node(), new PeerMessage.StartNodeDaemon(PeerMessage.VERSION, launch.job(), launch.command(), owner,
                launch.slurmJob()));
    }

    private ControlReply startHere(String job, List<String> command, JobOwner owner, String from, String slurmJob) {
        if (fenced) {
            return failed(ErrorCode.FENCED, config.node() + " fenced itself after the group expelled it; it starts nothing");
        }
        try {
            boolean transparentJob = scheduler != null && !job.isEmpty()
                    && scheduler.job(job).map(j -> j.mode() == RecoveryMode.TRANSPARENT).orElse(false);
            TransparentNode here = transparent;
            if (transparentJob && here != null) {
                // Open MPI's node daemon is told to use the job interface alone: without an address
                // there it exits at once with an empty log, and the launcher sees a lost node.
                here.jobNetwork();
            }
            long pid = agent.launch(job, command, !transparentJob, owner, slurmJob);
            LOG.info(() -> config.node() + ": launched Open MPI's node daemon for " + from + " as " + owner + ", pid " + pid);
            return new ControlReply.Launched(ControlReply.VERSION, config.node(), pid);
        } catch (IllegalArgumentException e) {
            LOG.warning(config.node() + ": refused a launch from " + from + ": " + e.getMessage());
            return failed(ErrorCode.REFUSED, config.node() + ": " + e.getMessage());
        } catch (IllegalStateException e) {
            return failed(ErrorCode.INTERNAL, config.node() + ": " + e.getMessage());
        }
    }

    private ControlReply killJob(ControlRequest.KillJob kill) {
        if (!kill.job().isEmpty()) {
            requireName("job", kill.job());
        }
        List<String> nodes = kill.nodes().isEmpty() ? membership.view().names() : kill.nodes();
        PeerMessage.KillJobProcesses message = new PeerMessage.KillJobProcesses(PeerMessage.VERSION, kill.job());
        return fanOut(nodes, node -> node.equals(config.node()) ? ok(config.node() + ": killed " + agent.kill(kill.job()))
                : peer(node, message), "killed");
    }

    private ControlReply restartDaemons(ControlRequest.RestartDaemons restart) {
        if (restart.nodes().isEmpty()) {
            throw new IllegalArgumentException("name the nodes whose daemons to restart");
        }
        PeerMessage.RestartDaemon message = new PeerMessage.RestartDaemon(PeerMessage.VERSION);
        return fanOut(restart.nodes(), node -> node.equals(config.node()) ? restartHere("a local client") : peer(node, message),
                "restarting");
    }

    /** Replies first, then has the daemon replaced: the hook runs a moment later, off this thread. */
    private ControlReply restartHere(String askedBy) {
        Runnable hook = restartHook;
        if (hook == null) {
            return failed(ErrorCode.REFUSED, config.node() + ": this daemon cannot restart itself (not run by 'ftd run')");
        }
        LOG.warning(config.node() + ": restarting, as " + askedBy + " asked");
        CompletableFuture.delayedExecutor(RESTART_DELAY.toMillis(), TimeUnit.MILLISECONDS).execute(hook);
        return ok(config.node() + ": restarting");
    }

    /** What restarts this daemon; set by whoever runs it. */
    public void onRestartRequested(Runnable hook) {
        this.restartHook = hook;
    }

    /** Does the same on every node, in parallel; fails naming the nodes where it failed. */
    private ControlReply fanOut(List<String> nodes, Function<String, ControlReply> action, String what) {
        nodes.forEach(node -> requireName("node", node));
        Map<String, ControlReply> replies = new ConcurrentHashMap<>();
        try (var executor = Executors.newVirtualThreadPerTaskExecutor()) {
            for (String node : nodes) {
                executor.execute(() -> replies.put(node, action.apply(node)));
            }
        }
        List<String> failures = new ArrayList<>();
        for (String node : nodes) {
            if (replies.get(node) instanceof ControlReply.Failed f) {
                failures.add(f.message());
            }
        }
        if (!failures.isEmpty()) {
            boolean unreachable = nodes.stream().anyMatch(n -> replies.get(n) instanceof ControlReply.Failed f && f.code() == ErrorCode.UNREACHABLE);
            return failed(unreachable ? ErrorCode.UNREACHABLE : ErrorCode.INTERNAL,
                    what + " on " + (nodes.size() - failures.size()) + " of " + nodes.size() + " nodes; " + String.join("; ", failures));
        }
        return ok(what + " on " + String.join(",", nodes));
    }

    private ControlReply peer(String node, PeerMessage message) {
        Member member = membership.view().member(node).orElse(null);
        if (member == null) {
            return failed(ErrorCode.NOT_FOUND, "node " + node + " is not in the group (members: "
                    + String.join(",", membership.view().names()) + ")");
        }
        // Metadata travels unresolved; resolve here, where the address is used.
        InetSocketAddress announced = member.metadata().controlAddress();
        return peers.call(node, new InetSocketAddress(announced.getHostString(), announced.getPort()), message);
    }

    /** Keeps {@code client} for the job's events ({@link JobSubscribers#subscribe}). */
    private ControlReply subscribe(String job, ControlServer.Client client) {
        requireName("job", job);
        if (scheduler == null) {
            return failed(ErrorCode.NOT_FOUND, config.node() + " runs no scheduler (set 'scheduler:' in its config)");
        }
        subscribers.subscribe(job, client);
        return ok("subscribed to job " + job);
    }

    /**
     * A transition the scheduler applied: orders for this node's ranks of the job, an event for
     * the job's subscribers. On the membership thread; neither blocks on a slow reader.
     */
    private void onTransition(JobTransition transition) {
        String job = transition.job();
        if (transition.update() instanceof SchedulerUpdate.JobFinished) {
            flushes.forget(job);
        }
        TransparentCoordinator transparentJobs = coordinator;
        if (transparentJobs != null) {
            transparentJobs.onTransition(transition);
        }
        orders.onTransition(transition);
        if (subscribers.any(job)) {
            subscribers.publish(job, new ControlReply.JobEvent(ControlReply.VERSION, job, transition.update(),
                    scheduler.status(transition.after())));
        }
    }

    /**
     * A request about job {@code job} for the scheduler: a bad job name is a bad request whether or
     * not this daemon runs the scheduler, so it is checked first.
     */
    private ControlReply forJob(String job, Supplier<String> action) {
        requireName("job", job);
        return withScheduler(action);
    }

    private ControlReply withScheduler(Supplier<String> action) {
        if (scheduler == null) {
            return failed(ErrorCode.NOT_FOUND, config.node() + " runs no scheduler (set 'scheduler:' in its config)");
        }
        return ok(action.get());
    }

    private static ControlReply ok(String detail) {
        return new ControlReply.Ok(ControlReply.VERSION, detail);
    }

    private static ControlReply failed(ErrorCode code, String message) {
        return new ControlReply.Failed(ControlReply.VERSION, code, message);
    }
}
