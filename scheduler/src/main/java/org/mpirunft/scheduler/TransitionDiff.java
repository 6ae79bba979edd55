package org.mpirunft.scheduler;

import java.util.ArrayList;
import java.util.List;

/**
 * The updates that take a job from one record to another, made up when a replica installs a
 * newer table and so skipped the real ones: its listeners still get every transition that
 * matters (a recovery to deliver to the ranks, a stop, the newest checkpoint order).
 */
final class TransitionDiff {
    private TransitionDiff() {
    }

    /** The updates from {@code before} (null: the job was not in the table) to {@code after}, in the order they happened. */
    static List<SchedulerUpdate> between(JobRecord before, JobRecord after) {
        List<SchedulerUpdate> updates = new ArrayList<>();
        int v = SchedulerUpdate.VERSION;
        String job = after.job();
        if (before == null) {
            updates.add(new SchedulerUpdate.JobRegistered(v, job, after.launcher(), after.rankNodes(), after.spares(), after.mode(), after.schedule(),
                    after.maxRestarts(), after.lastOrderAtMillis(), after.owner()));
        }
        if (after.committedEpoch() > (before == null ? 0 : before.committedEpoch())) {
            updates.add(new SchedulerUpdate.EpochCommitted(v, job, after.committedEpoch(), after.servedOrder(), 0));
        } else if (after.servedOrder() > (before == null ? 0 : before.servedOrder())) {
            updates.add(new SchedulerUpdate.CheckpointAbandoned(v, job, after.servedOrder(), 0, ""));
        }
        if (after.orderedEpoch() > (before == null ? 0 : before.orderedEpoch())) {
            updates.add(new SchedulerUpdate.CheckpointOrdered(v, job, after.orderedEpoch(), after.lastOrderAtMillis()));
        }
        JobState was = before == null ? JobState.RUNNING : before.state();
        boolean sameRecovery = before != null && before.recovery().equals(after.recovery());
        switch (after.state()) {
            case RUNNING -> {
                if (was == JobState.PAUSING) {
                    updates.add(new SchedulerUpdate.RecoveryCompleted(v, job, before.recovery().orElseThrow().failureId(),
                            after.rankNodes(), after.committedEpoch(), -1, null));
                } else if (was == JobState.RESTARTING) {
                    updates.add(new SchedulerUpdate.JobRelaunched(v, job, after.attempt(), after.rankNodes()));
                } else if (was == JobState.MIGRATING) {
                    long seq = before.migration().orElseThrow().seq();
                    updates.add(after.rankNodes().equals(before.rankNodes())
                            ? new SchedulerUpdate.MigrationAbandoned(v, job, seq, "")
                            : new SchedulerUpdate.MigrationCompleted(v, job, seq, after.rankNodes(), -1, null));
                }
            }
            case MIGRATING -> {
                JobRecord.Migration m = after.migration().orElseThrow();
                if (before == null || !before.migration().equals(after.migration())) {
                    if (was == JobState.MIGRATING) {
                        // The one this replica knew ended unseen: its ranks must not wait for it.
                        updates.add(new SchedulerUpdate.MigrationAbandoned(v, job, before.migration().orElseThrow().seq(), ""));
                    }
                    updates.add(new SchedulerUpdate.MigrationStarted(v, job, m.seq(), m.source(), m.reason(), m.moving(), m.placement()));
                }
            }
            case PAUSING -> {
                JobRecord.Recovery r = after.recovery().orElseThrow();
                if (!sameRecovery) {
                    updates.add(r.seq() == 1 && was != JobState.PAUSING
                            ? new SchedulerUpdate.RecoveryStarted(v, job, r.failureId(), r.source(), r.lostRanks(), r.placement(), "")
                            : new SchedulerUpdate.RecoveryExtended(v, job, r.failureId(), r.seq(), r.source(), r.lostRanks(),
                            r.placement(), ""));
                }
            }
            case RESTARTING -> {
                JobRecord.Recovery r = after.recovery().orElseThrow();
                if (!sameRecovery) {
                    updates.add(new SchedulerUpdate.RestartStarted(v, job, r.failureId(), r.source(), r.lostRanks(), r.placement(),
                            after.rankNodes(), ""));
                }
            }
            case STOPPED -> {
                if (was != JobState.STOPPED) {
                    JobRecord.Stop stop = after.stop().orElseThrow();
                    updates.add(new SchedulerUpdate.JobStopped(v, job, stop.cause(), stop.reason()));
                }
            }
        }
        // A turn to flush that this replica missed still has to reach the node's ranks.
        JobRecord.Flush flushBefore = before == null ? JobRecord.Flush.NONE : before.flush();
        JobRecord.Flush flush = after.flush();
        for (String node : flush.writing()) {
            if (flushBefore.epoch() != flush.epoch() || !flushBefore.writing().contains(node)) {
                updates.add(new SchedulerUpdate.FlushGranted(v, job, flush.epoch(), node));
            }
        }
        if (after.programFinished() && (before == null || !before.programFinished())) {
            updates.add(new SchedulerUpdate.ProgramFinished(v, job));
        }
        return updates;
    }

}
