package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Logger;
import org.mpirunft.common.JsonLines;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.FtdConfig;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.PeerMessage;
import org.mpirunft.daemon.protocol.Wire;
import org.mpirunft.membership.LoadSource;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeMetadata;

/**
 * One running node daemon: joins the group, serves the control socket and the peer port, hosts
 * the scheduler, and reaps the job processes it adopted. Started and closed by {@code Ftd}.
 */
public final class Daemon implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Daemon.class.getName());

    private final FtdConfig config;
    private final Membership membership;
    private final NodeAgent agent;
    private final DaemonCore core;
    private final SchedulerPort scheduler;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "ftd-timer");
        thread.setDaemon(true);
        return thread;
    });
    private final RuntimeFence fence;
    private final NodeDrain drain;
    private volatile HealthCheck health;
    private ControlServer control;
    private PeerServer peerServer;
    private RankServer ranks;

    /**
     * @param schedulerFactory makes the scheduler on this daemon's membership; may return null
     */
    public Daemon(FtdConfig config, Function<Membership, SchedulerPort> schedulerFactory) {
        this.config = config;
        byte[] secret = SecretFile.read(config.secretFile());
        if (!config.encryption()) {
            // Allowed, for a site that encrypts its cluster network itself, but never silently.
            LOG.warning(config.node() + ": group encryption is off (group.encryption: false): the group's traffic, "
                    + "job names and orders included, crosses the network in clear");
        }
        // Before any socket of a job (or of the group) exists: the kernel copies the cap into a socket when it is made.
        config.transparent().ifPresent(t -> TcpRetransmission.apply(config.node(), t.tcpRtoMax(), t.longestLock()));
        this.agent = new NodeAgent(config.node(), config.prted(), config.stateDir().resolve("logs"), config.rankSocket());
        agent.adopt(handoverFile(config));
        agent.keepHandoverIn(handoverFile(config));
        MembershipConfig membershipConfig = config.membershipConfig(secret);
        try {
            // Job names and owners are in the log: the daemon's alone.
            PrivateDirectories.createPrivate(config.groupLogDirectory());
        } catch (IOException e) {
            throw new DaemonException(config.node() + ": cannot make the group log's directory " + config.groupLogDirectory() + ": "
                    + e.getMessage(), e);
        }
        NodeMetadata self = new NodeMetadata(config.node(), config.role(), config.slots(), config.peerAddress());
        // A drain goes out with the load at once, not at the next report period.
        this.drain = new NodeDrain(config.node(), this::drainChanged);
        LoadSource load = LoadSource.system(agent::slotsInUse);
        this.membership = Membership.create(membershipConfig, self, () -> load.sample().withDrain(drain.reason()));
        this.scheduler = schedulerFactory.apply(membership);
        PeerAuth auth = new PeerAuth(secret);
        // A transparent dump or restore is one peer request: the reply may take up to its own bound.
        Duration replyBound = config.transparent().map(FtdConfig.Transparent::replyBound).orElse(Duration.ofSeconds(30));
        PeerClient peers = new PeerClient(config.node(), auth, membershipConfig.connectTimeout().multipliedBy(2), replyBound);
        this.fence = RuntimeFence.withSs(config.node());
        this.core = new DaemonCore(config, agent, membership, peers, scheduler, fence, drain);
        membership.addListener(core::onMembershipEvent);
        try {
            this.peerServer = new PeerServer(config.node(), config.peerAddress(), auth, core::handlePeer);
            this.control = new ControlServer(config.node(), config.socket(), config.operators(), core::handle);
            if (scheduler != null) {
                // The rank channel carries the scheduler's orders: without one there is nothing to say to ranks.
                // A rank is admitted as a process of its job on this node (NodeAgent) that runs as the job's owner.
                // The owner first: the agent's answer may wait for an mpirun's registration, which
                // another user's process has no business waiting for.
                RankReports reports = core.rankReports();
                this.ranks = new RankServer(config.node(), config.rankSocket(),
                        (pid, user, job) -> reports.rankOwnerRefusal(user, job).or(() -> agent.rankRefusal(pid, user, job)), reports);
                core.serveRanks(ranks);
                SchedulerPort hosted = scheduler;
                config.transparent().ifPresent(settings -> core.serveTransparent(
                        new TransparentNode(config.node(), agent, settings, hosted.sharedStorage()), hosted.sharedStorage()));
            }
        } catch (IOException e) {
            close();
            throw new DaemonException(config.node() + ": cannot listen: " + e.getMessage(), e);
        }
    }

    public void start() {
        if (scheduler != null) {
            scheduler.start();
        }
        membership.start();
        // In the background (the low priority is a hint Linux ignores by default): the first
        // failure report or restart this daemon passes on must not be the message that builds
        // its codecs (JsonTypes).
        Thread.ofPlatform().daemon().priority(Thread.MIN_PRIORITY).name("ftd-prepare-codecs").start(() -> {
            Wire.prepare(ControlRequest.class, ControlReply.class, PeerMessage.class);
            JsonLines.prepare(RankMessage.class);
        });
        timer.scheduleWithFixedDelay(agent::reapAdopted, 1, 1, TimeUnit.SECONDS);
        // Job processes start with a write of their own; this catches restored trees and ended ones.
        timer.scheduleWithFixedDelay(agent::refreshHandover, 5, 5, TimeUnit.SECONDS);
        health = config.health().map(check -> HealthCheck.start(check, agent::startOwn, drain::healthChecked)).orElse(null);
        LOG.info(() -> config.node() + ": ftd up as " + config.role().name().toLowerCase() + " in view "
                + membership.view().id() + " (" + membership.view().size() + " members); control socket " + config.socket()
                + ", rank socket " + (ranks == null ? "none" : config.rankSocket()) + ", peer port " + config.peerPort());
    }

    /** The node's drain changed: the load report carries it, sent now rather than at the next period. */
    private void drainChanged() {
        membership.publishLoadNow();
    }

    public DaemonCore core() {
        return core;
    }

    public Membership membership() {
        return membership;
    }

    /**
     * Leaves the group gracefully; the job processes on the node are left to their job, and handed
     * over to the node's next daemon (a restart).
     */
    @Override
    public void close() {
        agent.handOver(handoverFile(config));
        timer.shutdownNow();
        core.closeTransparent();
        if (health != null) {
            health.close();
        }
        if (control != null) {
            control.close();
        }
        if (ranks != null) {
            ranks.close();
        }
        fence.close();
        if (scheduler != null) {
            scheduler.close();
        }
        membership.close();
        if (peerServer != null) {
            peerServer.close();
        }
    }

    private static Path handoverFile(FtdConfig config) {
        return config.stateDir().resolve("handover.json");
    }
}
