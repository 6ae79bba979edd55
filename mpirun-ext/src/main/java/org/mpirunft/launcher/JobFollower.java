package org.mpirunft.launcher;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * Follows the job's state machine as the scheduler's transitions reach the launcher through its
 * daemon ({@link ControlReply.JobEvent}): writes each transition to the event log, in order, and
 * tells the session what it must carry out itself (a whole-job restart, a stop, the bounded exit
 * once the program finished). It decides nothing: the scheduler does. Not thread-safe: the
 * session calls it from its one events thread.
 */
public final class JobFollower {
    private static final Logger LOG = Logger.getLogger(JobFollower.class.getName());

    /** What the session carries out when the scheduler decides it. */
    public interface Actions {
        /** Stop mpirun and launch the job again on {@code rankNodes}; {@code lostNodes}: where the failure took ranks. */
        void restart(String failureId, List<String> rankNodes, Set<String> lostNodes, String reason);

        /** Stop mpirun for good; checkpoints are kept. {@code cause}: {@code no-spare}, {@code restarts-exhausted}, ... */
        void stop(String cause, String reason);

        /** Every rank agreed the program is done: bound mpirun's exit. */
        void programFinished();

        /** Transparent mode: the whole job was restored, its mpirun is now a process the daemon restored. */
        default void restored(String failureId) {
        }
    }

    /** Why the scheduler stopped the job. */
    public record Stop(String cause, String reason) {
    }

    private final String job;
    private final EventLog events;
    private final Actions actions;
    private final LongSupplier nanoClock;
    private final RecoveryMode mode;
    /** Where each rank runs, as the transitions say. */
    private List<String> rankNodes;
    /**
     * The rank each job rank had in mpirun's world when it was launched, by job rank. A shrink
     * renumbers the job's ranks, not Open MPI's, which still names its processes by their launch
     * ranks: a loss mpirun reports is translated through this. Identity until a shrink.
     */
    private volatile List<Integer> launchRanks;
    private String state = "RUNNING";
    private Stop stop;
    private boolean programFinished;
    private int recoveries;
    /** The migration under way, as ordered: its done event names its source and reason. */
    private SchedulerUpdate.MigrationStarted migration;
    /** The transitions followed so far, by {@link #keyOf}. */
    private final Set<String> seen = new HashSet<>();
    /** When each recovery's decision reached this launcher, for the resume's "since pause" figure. */
    private final Map<String, Long> pausedAtNanos = new HashMap<>();
    /** The ranks each recovery under way lost, by failure id: a shrink's event names them. */
    private final Map<String, Map<Integer, String>> lostByFailure = new HashMap<>();

    /** @param mode how the job recovers: in place (pause, transparent), a restart is a fallback */
    public JobFollower(String job, List<String> rankNodes, RecoveryMode mode, EventLog events, Actions actions,
                       LongSupplier nanoClock) {
        this.mode = mode;
        this.job = job;
        this.rankNodes = List.copyOf(rankNodes);
        this.launchRanks = identity(rankNodes.size());
        this.events = events;
        this.actions = actions;
        this.nanoClock = nanoClock;
    }

    /** One event of the daemon's stream for the job; a snapshot ({@code update} null) only updates what is known. */
    public void on(ControlReply.JobEvent event) {
        if (event.status() != null) {
            state = String.valueOf(event.status().state());
        }
        SchedulerUpdate update = event.update();
        if (update != null && !seen.add(keyOf(update))) {
            // A daemon that installed a newer table hands out the transitions it skipped, made up
            // from the difference: one this launcher already followed is not news.
            LOG.fine(() -> "job " + job + ": already followed " + update);
            return;
        }
        if (update == null) {
            if (event.status() != null && event.status().rankNodes() != null && !event.status().rankNodes().isEmpty()) {
                rankNodes = List.copyOf(event.status().rankNodes());
            }
            return;
        }
        LOG.fine(() -> "job " + job + ": " + update);
        switch (update) {
            // Stamped with the scheduler's time of the order, not the time it reached this launcher:
            // the log shows the scheduler's rhythm, not the delivery's jitter.
            case SchedulerUpdate.CheckpointOrdered u -> events.append(new LauncherEvent.Checkpoint(u.epoch(), "ordered", 0),
                    u.atMillis() > 0 ? java.time.Instant.ofEpochMilli(u.atMillis()) : events.now());
            case SchedulerUpdate.EpochCommitted u -> events.append(new LauncherEvent.Checkpoint(u.epoch(), "committed",
                    millis(u.costNanos())));
            case SchedulerUpdate.CheckpointAbandoned u -> {
                LOG.warning(() -> "job " + job + ": checkpoint order " + u.order() + " did not commit"
                        + (u.reason().isEmpty() ? "" : ": " + u.reason()) + "; the last committed epoch stays the recovery line");
                events.append(new LauncherEvent.Checkpoint(u.order(), "abandoned", 0));
            }
            case SchedulerUpdate.RecoveryStarted u -> {
                failure(u.failureId(), u.lostRanks(), u.source());
                lostByFailure.put(u.failureId(), u.lostRanks());
                events.append(new LauncherEvent.Decision(u.failureId(), inPlaceWord(u.placement()), u.placement(), u.detail()));
                events.append(new LauncherEvent.Pause(u.failureId(), 1, liveNodes(u.lostRanks()), List.copyOf(u.placement().values()), 0));
                pausedAtNanos.put(u.failureId(), nanoClock.getAsLong());
            }
            case SchedulerUpdate.RecoveryExtended u -> {
                failure(u.failureId(), u.lostRanks(), u.source());
                lostByFailure.put(u.failureId(), u.lostRanks());
                events.append(new LauncherEvent.Decision(u.failureId(), inPlaceWord(u.placement()), u.placement(),
                        "extends the recovery under way (order " + u.seq() + ")" + (u.detail().isEmpty() ? "" : ": " + u.detail())));
                events.append(new LauncherEvent.Pause(u.failureId(), u.seq(), liveNodes(u.lostRanks()),
                        List.copyOf(u.placement().values()), 0));
                pausedAtNanos.putIfAbsent(u.failureId(), pausedAtNanos.values().stream().findFirst().orElse(nanoClock.getAsLong()));
            }
            case SchedulerUpdate.RecoveryCompleted u -> resumed(u);
            case SchedulerUpdate.RestartStarted u -> {
                // Carried out first, logged after, stamped with the time the decision came: the
                // first line of a kind costs a fresh JVM tens of milliseconds to encode, which
                // the stop of mpirun need not wait for. The session appends the restart itself
                // only after this handler returned, so the log stays in order.
                Instant decided = events.now();
                actions.restart(u.failureId(), u.rankNodes(), new LinkedHashSet<>(u.lostRanks().values()), u.reason());
                failure(u.failureId(), u.lostRanks(), u.source(), decided);
                events.append(new LauncherEvent.Decision(u.failureId(), "restart", u.placement(), u.reason()), decided);
                if (mode.recoversInPlace()) {
                    // In pause mode a restart means a pause could not work: the paper's fallback.
                    events.append(new LauncherEvent.Fallback(u.failureId(), u.reason()), decided);
                }
            }
            case SchedulerUpdate.JobRelaunched u -> {
                rankNodes = List.copyOf(u.rankNodes());
                launchRanks = identity(rankNodes.size());
            }
            case SchedulerUpdate.JobStopped u -> {
                stop = new Stop(u.cause(), u.reason());
                Instant decided = events.now();
                actions.stop(u.cause(), u.reason()); // first, as for a restart
                events.append(new LauncherEvent.Decision("", "stop", Map.of(), u.reason()), decided);
            }
            case SchedulerUpdate.ProgramFinished u -> {
                programFinished = true;
                actions.programFinished();
            }
            case SchedulerUpdate.JobRegistered u -> {
            }
            case SchedulerUpdate.JobFinished u -> {
            }
            case SchedulerUpdate.FlushRequested u -> events.append(new LauncherEvent.Flush(u.epoch(), u.node(), "asked"));
            case SchedulerUpdate.FlushGranted u -> events.append(new LauncherEvent.Flush(u.epoch(), u.node(), "granted"));
            case SchedulerUpdate.FlushDone u -> events.append(new LauncherEvent.Flush(u.epoch(), u.node(), "done"));
            case SchedulerUpdate.MigrationStarted u -> {
                migration = u;
                events.append(new LauncherEvent.Migration(u.seq(), "ordered", u.source(), u.reason(), u.moving(), u.placement(), -1, null));
            }
            case SchedulerUpdate.MigrationCompleted u -> {
                Map<Integer, String> from = new java.util.TreeMap<>();
                Map<Integer, String> to = new java.util.TreeMap<>();
                for (int rank = 0; rank < u.rankNodes().size() && rank < rankNodes.size(); rank++) {
                    if (!rankNodes.get(rank).equals(u.rankNodes().get(rank))) {
                        from.put(rank, rankNodes.get(rank));
                        to.put(rank, u.rankNodes().get(rank));
                    }
                }
                if (u.rankNodes().size() == rankNodes.size()) {
                    rankNodes = List.copyOf(u.rankNodes());
                }
                SchedulerUpdate.MigrationStarted ordered = migration != null && migration.seq() == u.seq() ? migration : null;
                migration = null;
                events.append(new LauncherEvent.Migration(u.seq(), "done", ordered == null ? "" : ordered.source(),
                        ordered == null ? "" : ordered.reason(), from, to, u.iteration(), u.split()));
            }
            case SchedulerUpdate.MigrationAbandoned u -> {
                migration = null;
                LOG.warning(() -> "job " + job + ": migration " + u.seq() + " was given up" + (u.reason().isEmpty() ? "" : ": " + u.reason())
                        + "; the ranks go on where they were");
                events.append(new LauncherEvent.Migration(u.seq(), "abandoned", "", u.reason(), Map.of(), Map.of(), -1, null));
            }
        }
    }

    /** What makes a transition the same one again: its kind and what it is about. */
    private static String keyOf(SchedulerUpdate update) {
        return switch (update) {
            case SchedulerUpdate.CheckpointOrdered u -> "ordered/" + u.epoch();
            case SchedulerUpdate.EpochCommitted u -> "committed/" + u.epoch();
            case SchedulerUpdate.CheckpointAbandoned u -> "abandoned/" + u.order();
            case SchedulerUpdate.RecoveryStarted u -> "recovery/" + u.failureId() + "/1";
            case SchedulerUpdate.RecoveryExtended u -> "recovery/" + u.failureId() + "/" + u.seq();
            case SchedulerUpdate.RecoveryCompleted u -> "completed/" + u.failureId() + "/" + u.rankNodes();
            case SchedulerUpdate.RestartStarted u -> "restart/" + u.failureId() + "/" + u.rankNodes();
            case SchedulerUpdate.JobRelaunched u -> "relaunched/" + u.attempt();
            case SchedulerUpdate.JobStopped u -> "stopped";
            case SchedulerUpdate.ProgramFinished u -> "finished";
            case SchedulerUpdate.JobRegistered u -> "registered";
            case SchedulerUpdate.JobFinished u -> "gone";
            case SchedulerUpdate.FlushRequested u -> "flush/asked/" + u.epoch() + "/" + u.node();
            case SchedulerUpdate.FlushGranted u -> "flush/granted/" + u.epoch() + "/" + u.node();
            case SchedulerUpdate.FlushDone u -> "flush/done/" + u.epoch() + "/" + u.node();
            case SchedulerUpdate.MigrationStarted u -> "migration/" + u.seq();
            case SchedulerUpdate.MigrationCompleted u -> "migrated/" + u.seq();
            case SchedulerUpdate.MigrationAbandoned u -> "migration-abandoned/" + u.seq();
        };
    }

    private void failure(String failureId, Map<Integer, String> lostRanks, String source) {
        failure(failureId, lostRanks, source, events.now());
    }

    private void failure(String failureId, Map<Integer, String> lostRanks, String source, Instant at) {
        events.append(new LauncherEvent.Failure(failureId, List.copyOf(lostRanks.keySet()),
                List.copyOf(new LinkedHashSet<>(lostRanks.values())), source), at);
    }

    private void resumed(SchedulerUpdate.RecoveryCompleted u) {
        List<Integer> replaced = new ArrayList<>();
        Map<Integer, String> lost = lostByFailure.getOrDefault(u.failureId(), Map.of());
        lostByFailure.clear();
        if (!u.rankNodes().isEmpty() && u.rankNodes().size() < rankNodes.size()) {
            events.append(new LauncherEvent.Shrink(u.failureId(), List.copyOf(lost.keySet()), rankNodes.size(), u.rankNodes().size(),
                    u.rankNodes()));
            // The survivors in their old order, the first of them if the program runs on fewer.
            List<Integer> kept = new ArrayList<>();
            List<Integer> before = launchRanks;
            for (int rank = 0; rank < before.size() && kept.size() < u.rankNodes().size(); rank++) {
                if (!lost.containsKey(rank)) {
                    kept.add(before.get(rank));
                }
            }
            launchRanks = List.copyOf(kept);
            rankNodes = List.copyOf(u.rankNodes());
        }
        for (int rank = 0; rank < u.rankNodes().size() && rank < rankNodes.size(); rank++) {
            String from = rankNodes.get(rank);
            String to = u.rankNodes().get(rank);
            if (!from.equals(to)) {
                replaced.add(rank);
                String start = mode == RecoveryMode.TRANSPARENT ? "restore"
                        : u.split() == null ? "" : u.split().warmRanks().contains(rank) ? "warm" : "spawn";
                events.append(new LauncherEvent.Replacement(u.failureId(), rank, from, to, start));
            }
        }
        if (u.rankNodes().size() == rankNodes.size()) {
            rankNodes = List.copyOf(u.rankNodes());
        }
        Long pausedAt = pausedAtNanos.remove(u.failureId());
        pausedAtNanos.clear();
        double sincePause = pausedAt == null ? -1 : millis(nanoClock.getAsLong() - pausedAt);
        events.append(new LauncherEvent.Resume(u.failureId(), replaced, u.epoch(), u.iteration(),
                u.split() == null ? -1 : u.split().totalMillis(), sincePause, u.split()));
        recoveries++;
        if (mode == RecoveryMode.TRANSPARENT) {
            actions.restored(u.failureId());
        }
    }

    /** The decision's word for a recovery in place: a pause, a transparent restore, or a shrink (no spare, nothing placed). */
    private String inPlaceWord(Map<Integer, String> placement) {
        if (placement.isEmpty()) {
            return "shrink";
        }
        return mode == RecoveryMode.TRANSPARENT ? "restore" : "pause";
    }

    /** The job's nodes that still run ranks: where the pause order went. */
    private List<String> liveNodes(Map<Integer, String> lostRanks) {
        Set<String> lost = new LinkedHashSet<>(lostRanks.values());
        return rankNodes.stream().distinct().filter(n -> !lost.contains(n)).toList();
    }

    public List<String> rankNodes() {
        return rankNodes;
    }

    /** The job rank of the process mpirun launched as rank {@code launchRank}, if it still is one (see {@link #launchRanks}). */
    public java.util.OptionalInt jobRankOf(int launchRank) {
        int rank = launchRanks.indexOf(launchRank);
        return rank < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(rank);
    }

    private static List<Integer> identity(int ranks) {
        return java.util.stream.IntStream.range(0, ranks).boxed().toList();
    }

    /** The job's state as the last transition left it: RUNNING, PAUSING, RESTARTING or STOPPED. */
    public String state() {
        return state;
    }

    public Optional<Stop> stopped() {
        return Optional.ofNullable(stop);
    }

    public boolean programFinished() {
        return programFinished;
    }

    /** In-place recoveries completed. */
    public int recoveries() {
        return recoveries;
    }

    private static double millis(long nanos) {
        return Math.round(nanos / 1e4) / 100.0;
    }
}
