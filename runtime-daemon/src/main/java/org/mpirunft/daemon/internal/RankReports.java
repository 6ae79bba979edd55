package org.mpirunft.daemon.internal;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.BooleanSupplier;
import java.util.logging.Logger;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;

/**
 * What this node's ranks tell the daemon on the rank channel, and what it does with it: a rank's
 * welcome when it connects (its job's state and checkpoint orders so far), its reports passed to
 * the scheduler as requests, its death when its channel ends without its leaving
 * ({@link RankExits}), its node's turn in a staggered flush ({@link NodeFlushes}), and the
 * survivors' call to warm spares, passed to the spares' daemons. Called on each rank's reading
 * thread. A node fenced after the group expelled it passes nothing on: its ranks speak of a job
 * that went on without them.
 */
final class RankReports implements RankServer.Reports {
    private static final Logger LOG = Logger.getLogger(RankReports.class.getName());

    private final String node;
    /** The scheduler this daemon hosts; null for a daemon without one, which passes nothing on. */
    private final SchedulerPort scheduler;
    private final NodeAgent agent;
    /** Which ends of rank channels are deaths; the node is known once the config is. */
    private final RankExits rankExits;
    private final NodeFlushes flushes;
    private final RankOrders orders;
    /** A request to another node's daemon ({@code DaemonCore.peer}). */
    private final BiFunction<String, PeerMessage, ControlReply> peer;
    /** Whether this node fenced itself ({@code DaemonCore.fenced}). */
    private final BooleanSupplier fenced;

    RankReports(String node, SchedulerPort scheduler, NodeAgent agent, NodeFlushes flushes, RankOrders orders,
                BiFunction<String, PeerMessage, ControlReply> peer, BooleanSupplier fenced) {
        this.node = node;
        this.scheduler = scheduler;
        this.agent = agent;
        this.rankExits = new RankExits(node, RankExits.EXIT_WAIT);
        this.flushes = flushes;
        this.orders = orders;
        this.peer = peer;
        this.fenced = fenced;
    }

    /** Why a process of {@code user} may not be a rank of {@code job}: the job is another user's. */
    Optional<String> rankOwnerRefusal(String user, String job) {
        return (scheduler == null ? Optional.<JobRecord>empty() : scheduler.job(job)).map(JobRecord::owner)
                .filter(owner -> !owner.name().equals(user))
                .map(owner -> "job " + job + " is " + owner.name() + "'s, and its ranks run as " + owner.name() + ", not as " + user);
    }

    /** What the rank that said {@code hello} is told when it connects. */
    @Override
    public RankMessage.Welcome welcome(RankMessage.Hello hello) {
        String job = hello.job();
        Optional<JobRecord> record = scheduler == null ? Optional.empty() : scheduler.job(job);
        rankExits.admitted(hello, record);
        if (hello.fromSpare()) {
            // On the channel while idle: it still takes no slot of its node (NodeAgent.slotsInUse).
            agent.idleSpare(hello.pid());
        }
        return new RankMessage.Welcome(RankMessage.VERSION, job, node, record.map(r -> r.state().isLive()).orElse(false),
                record.map(JobRecord::orderedEpoch).orElse(0L), record.map(JobRecord::servedOrder).orElse(0L),
                record.map(r -> r.schedule().everyIterations()).orElse(0), record.isPresent() ? scheduler.flushWriters() : 0);
    }

    /** The channel of the rank that said {@code hello} ended without its leaving: a failure if it died ({@link RankExits}). */
    @Override
    public void endedWithoutLeaving(RankMessage.Hello hello) {
        if (scheduler == null || fenced.getAsBoolean()) {
            return;
        }
        rankExits.ended(hello, scheduler::job).filter(report -> !fenced.getAsBoolean()).ifPresent(report -> {
            LOG.info(() -> node + ": job " + hello.job() + ": " + report.detail());
            scheduler.failureReported(hello.job(), report.source(), report.lostRanks(), report.lostNodes(), report.detail(),
                    report.reporter());
        });
    }

    /** A rank's report, passed to the scheduler; on that rank's reading thread. */
    @Override
    public void report(String job, RankMessage report) {
        if (scheduler == null) {
            return;
        }
        if (fenced.getAsBoolean()) {
            // This node was expelled: what its ranks say is about a job that went on without them.
            LOG.info(() -> node + ": fenced; ignoring " + report.getClass().getSimpleName() + " from a rank of " + job);
            return;
        }
        switch (report) {
            case RankMessage.EpochCommitted r -> scheduler.epochCommitted(job, r.epoch(), r.orderedEpoch(),
                    Duration.ofNanos(Math.round((r.stallMillis() + r.writeMillis()) * 1e6)));
            case RankMessage.EpochAbandoned r -> scheduler.checkpointAbandoned(job, r.orderedEpoch(), r.epoch(), r.reason());
            case RankMessage.FailureSeen r -> scheduler.failureReported(job, "ulfm", r.lostRanks(), List.of(),
                    "rank " + r.rank() + " saw ranks " + r.lostRanks().keySet() + " fail", new FailureReport.Reporter(r.rank(), node));
            case RankMessage.RecoveryDone r -> scheduler.recoveryCompleted(job, r.failureId(), r.rankNodes(), r.epoch(), r.iteration(),
                    r.split());
            case RankMessage.RecoveryFailed r -> {
                if (r.restartable()) {
                    scheduler.restartNeeded(job, "ranks", "rank " + r.rank() + ": " + r.reason(),
                            new FailureReport.Reporter(r.rank(), node));
                } else {
                    scheduler.stopJob(job, r.cause(), r.reason());
                }
            }
            case RankMessage.MigrationDone r -> scheduler.migrationCompleted(job, r.seq(), r.rankNodes(), r.iteration(), r.split());
            case RankMessage.MigrationFailed r -> scheduler.migrationAbandoned(job, r.seq(), r.reason());
            case RankMessage.Finished r -> scheduler.programFinished(job);
            case RankMessage.SpareCall r -> callSpares(r);
            case RankMessage.FlushWanted r -> {
                scheduler.flushRequested(job, r.epoch(), node);
                // A rank that asks after the node's turn began gets it now.
                scheduler.job(job).map(JobRecord::flush)
                        .filter(flush -> flush.epoch() == r.epoch() && flush.writing().contains(node))
                        .ifPresent(flush -> orders.deliver(job, new RankMessage.FlushGrant(RankMessage.VERSION, job, r.epoch())));
            }
            case RankMessage.FlushDone r -> {
                int here = scheduler.job(job).map(j -> (int) j.rankNodes().stream().filter(node::equals).count()).orElse(0);
                if (flushes.rankDone(job, r.epoch(), r.rank(), here)) {
                    scheduler.flushDone(job, r.epoch(), node);
                }
            }
            default -> LOG.warning(() -> node + ": ignoring " + report.getClass().getSimpleName() + " from a rank of " + job);
        }
    }

    /**
     * Passes the survivors' call to the daemons of the called spares' nodes (this one included),
     * which give it to those spares. Straight from daemon to daemon, not through the scheduler's
     * replicated log: a call is worth something only during the attempt that made it, and the
     * survivors' root bounds its wait for the answer (WorldRepair), so a call lost with a daemon
     * costs that attempt, never a hang. One virtual thread per node: a peer that does not
     * answer (its node just died) holds up neither the others nor this rank's channel.
     */
    void callSpares(RankMessage.SpareCall call) {
        LOG.info(() -> node + ": job " + call.job() + ": warm spare(s) " + call.group() + " called (" + call.callId()
                + ") on " + String.join(",", new java.util.TreeSet<>(call.nodes().values())));
        for (String target : spareCallNodes(call)) {
            if (target.equals(node)) {
                orders.deliver(call.job(), call);
                continue;
            }
            Thread.ofVirtual().name("call-spares-" + target).start(() -> {
                ControlReply reply = peer.apply(target, new PeerMessage.CallSpares(PeerMessage.VERSION, call));
                if (reply instanceof ControlReply.Failed failed) {
                    LOG.warning(node + ": job " + call.job() + ": the call " + call.callId() + " did not reach " + target + ": "
                            + failed.message());
                }
            });
        }
    }

    /** The nodes whose daemons hand {@code call} on: those of the spares it names, each once. */
    static java.util.SortedSet<String> spareCallNodes(RankMessage.SpareCall call) {
        java.util.SortedSet<String> nodes = new java.util.TreeSet<>();
        for (int spare : call.group()) {
            String target = call.nodes().get(spare);
            if (target != null) {
                nodes.add(target);
            }
        }
        return nodes;
    }
}
