package org.mpirunft.daemon.internal;

import static org.mpirunft.common.Names.requireName;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import org.mpirunft.daemon.FtdConfig;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipEvent;

/**
 * What the daemon does for its clients and its peers: launches on this node or relays to the
 * target node's daemon, fans rank control files and kills out to the job's nodes, relays
 * scheduler requests, and fences the node when the group expelled it.
 */
public final class DaemonCore {
    private static final Logger LOG = Logger.getLogger(DaemonCore.class.getName());
    private static final Pattern CONTROL_FILE = Pattern.compile("[a-z][a-z0-9-]{0,40}\\.json");
    private static final int MAX_CONTROL_FILE = 64 * 1024;

    private final FtdConfig config;
    private final NodeAgent agent;
    private final Membership membership;
    private final PeerClient peers;
    private final SchedulerPort scheduler;
    /** Open subscriptions, by job. */
    private final Map<String, List<ControlServer.Client>> subscribers = new ConcurrentHashMap<>();
    /** Long enough for the reply to leave before the daemon does. */
    private static final Duration RESTART_DELAY = Duration.ofMillis(200);
    private volatile Runnable restartHook;
    private volatile boolean fenced;

    public DaemonCore(FtdConfig config, NodeAgent agent, Membership membership, PeerClient peers, SchedulerPort scheduler) {
        this.config = config;
        this.agent = agent;
        this.membership = membership;
        this.peers = peers;
        this.scheduler = scheduler;
        if (scheduler != null) {
            scheduler.onCommand(this::publish);
        }
    }

    public boolean fenced() {
        return fenced;
    }

    /** Membership events: fence on expulsion, take work again once merged back. */
    public void onMembershipEvent(MembershipEvent event) {
        switch (event) {
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

    ControlReply handle(ControlRequest request, ControlServer.Client client) {
        return switch (request) {
            case ControlRequest.Status s -> status();
            case ControlRequest.Launch launch -> launch(launch);
            case ControlRequest.Subscribe subscribe -> {
                requireName("job", subscribe.job());
                subscribers.computeIfAbsent(subscribe.job(), j -> new CopyOnWriteArrayList<>()).add(client);
                yield ok("subscribed to job " + subscribe.job());
            }
            case ControlRequest.DeliverRankControl deliver -> deliver(deliver);
            case ControlRequest.KillJob kill -> killJob(kill);
            case ControlRequest.RestartDaemons restart -> restartDaemons(restart);
            case ControlRequest.RegisterJob register -> withScheduler(() -> {
                requireName("job", register.job());
                if (register.rankNodes().isEmpty()) {
                    throw new IllegalArgumentException("a job needs at least one rank");
                }
                register.rankNodes().forEach(node -> requireName("rank node", node));
                scheduler.registerJob(register.job(), config.node(), register.rankNodes());
                return "job " + register.job() + " registered with " + register.rankNodes().size() + " ranks";
            });
            case ControlRequest.EpochCommitted committed -> withScheduler(() -> {
                scheduler.epochCommitted(committed.job(), committed.epoch(), Duration.ofMillis(Math.max(0, committed.costMillis())));
                return "epoch " + committed.epoch() + " of " + committed.job() + " recorded";
            });
            case ControlRequest.RecoveryCompleted done -> withScheduler(() -> {
                scheduler.recoveryCompleted(done.job(), done.failureId(), done.rankNodes());
                return "recovery " + done.failureId() + " of " + done.job() + " recorded";
            });
            case ControlRequest.JobFinished finished -> withScheduler(() -> {
                scheduler.jobFinished(finished.job());
                subscribers.remove(finished.job());
                return "job " + finished.job() + " finished";
            });
            case ControlRequest.CheckpointNow now -> withScheduler(() -> {
                scheduler.checkpointNow(now.job());
                return "checkpoint of " + now.job() + " ordered";
            });
        };
    }

    /** Requests from other daemons, already authenticated. */
    ControlReply handlePeer(String from, PeerMessage message) {
        return switch (message) {
            case PeerMessage.StartNodeDaemon start -> startHere(start.job(), start.command(), from);
            case PeerMessage.WriteRankControl write -> {
                try {
                    yield ok(writeHere(write.job(), write.file(), write.content()));
                } catch (IllegalArgumentException e) {
                    yield failed(ErrorCode.BAD_REQUEST, e.getMessage());
                }
            }
            case PeerMessage.KillJobProcesses kill -> ok(config.node() + ": killed " + agent.kill(kill.job()));
            case PeerMessage.RestartDaemon restart -> restartHere(from);
            default -> failed(ErrorCode.BAD_REQUEST, "not a request: " + message.getClass().getSimpleName());
        };
    }

    private ControlReply status() {
        ClusterView view = membership.view();
        List<ControlReply.MemberStatus> members = view.members().stream().map(DaemonCore::memberStatus).toList();
        return new ControlReply.StatusReport(ControlReply.VERSION, config.node(), config.role().name().toLowerCase(),
                membership.state() == Membership.State.JOINED, fenced, scheduler == null ? "" : scheduler.leader(), view.id(),
                members, agent.processes(), scheduler == null ? List.of() : scheduler.jobs());
    }

    private static ControlReply.MemberStatus memberStatus(Member member) {
        return new ControlReply.MemberStatus(member.name(), member.role().name().toLowerCase(), member.metadata().slots(),
                member.load().slotsInUse(), member.load().loadAverage(), member.metadata().controlEndpoint());
    }

    private ControlReply launch(ControlRequest.Launch launch) {
        requireName("node", launch.node());
        if (!launch.job().isEmpty()) {
            requireName("job", launch.job());
        }
        if (launch.node().equals(config.node())) {
            return startHere(launch.job(), launch.command(), config.node());
        }
        return peer(launch.node(), new PeerMessage.StartNodeDaemon(PeerMessage.VERSION, launch.job(), launch.command()));
    }

    private ControlReply startHere(String job, List<String> command, String from) {
        if (fenced) {
            return failed(ErrorCode.FENCED, config.node() + " fenced itself after the group expelled it; it starts nothing");
        }
        try {
            long pid = agent.launch(job, command);
            LOG.info(() -> config.node() + ": launched Open MPI's node daemon for " + from + ", pid " + pid);
            return new ControlReply.Launched(ControlReply.VERSION, config.node(), pid);
        } catch (IllegalArgumentException e) {
            LOG.warning(config.node() + ": refused a launch from " + from + ": " + e.getMessage());
            return failed(ErrorCode.REFUSED, config.node() + ": " + e.getMessage());
        } catch (IllegalStateException e) {
            return failed(ErrorCode.INTERNAL, config.node() + ": " + e.getMessage());
        }
    }

    private ControlReply deliver(ControlRequest.DeliverRankControl deliver) {
        requireName("job", deliver.job());
        checkControlFile(deliver.file(), deliver.content());
        PeerMessage.WriteRankControl write = new PeerMessage.WriteRankControl(PeerMessage.VERSION, deliver.job(), deliver.file(),
                deliver.content());
        return fanOut(deliver.nodes(), node -> node.equals(config.node())
                ? ok(writeHere(deliver.job(), deliver.file(), deliver.content())) : peer(node, write), "wrote " + deliver.file());
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

    private String writeHere(String job, String file, String content) {
        requireName("job", job);
        checkControlFile(file, content);
        Path directory = config.rankControlOf(job);
        try {
            Files.createDirectories(directory);
            Path temporary = directory.resolve("." + file + ".tmp");
            Files.writeString(temporary, content, StandardCharsets.UTF_8);
            // Ranks poll the file: they must see the old order or the new one, never half of it.
            Files.move(temporary, directory.resolve(file), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            return config.node() + ": wrote " + directory.resolve(file);
        } catch (IOException e) {
            throw new IllegalStateException(config.node() + ": cannot write " + directory.resolve(file) + ": " + e.getMessage(), e);
        }
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

    private void publish(ControlReply.JobCommand command) {
        List<ControlServer.Client> clients = subscribers.getOrDefault(command.job(), List.of());
        for (ControlServer.Client client : clients) {
            try {
                client.send(command);
            } catch (IOException e) {
                clients.remove(client);
            }
        }
    }

    private ControlReply withScheduler(Supplier<String> action) {
        if (scheduler == null) {
            return failed(ErrorCode.NOT_FOUND, config.node() + " runs no scheduler (set 'scheduler:' in its config)");
        }
        return ok(action.get());
    }

    private static void checkControlFile(String file, String content) {
        if (file == null || !CONTROL_FILE.matcher(file).matches()) {
            throw new IllegalArgumentException("rank control file must be a plain name like pause.json, got '" + file + "'");
        }
        if (content == null || content.length() > MAX_CONTROL_FILE) {
            throw new IllegalArgumentException("rank control content must be at most " + MAX_CONTROL_FILE + " characters");
        }
    }

    private static ControlReply ok(String detail) {
        return new ControlReply.Ok(ControlReply.VERSION, detail);
    }

    private static ControlReply failed(ErrorCode code, String message) {
        return new ControlReply.Failed(ControlReply.VERSION, code, message);
    }
}
