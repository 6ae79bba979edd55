package org.mpirunft.scheduler;

/**
 * Where a job is in its life, as the scheduler's replicated state machine holds it. Every
 * failure source (ranks through ULFM, Open MPI through mpirun, the daemons' detector) feeds the
 * same machine; only the leader moves a job from one state to another, by replicated
 * {@link SchedulerUpdate}s.
 *
 * <pre>
 *   RUNNING --failure, pause mode--> PAUSING --ranks resumed--> RUNNING
 *   RUNNING --failure, restart mode, or a pause that failed--> RESTARTING --relaunched--> RUNNING
 *   PAUSING --another failure, or the chosen spare lost--> PAUSING (extended: more lost ranks, the next spare)
 *   RUNNING --a node drained, or migrate ordered--> MIGRATING --ranks moved, or the move given up--> RUNNING
 *   MIGRATING --failure--> PAUSING (the move is dropped; the pause rolls back to the last committed epoch)
 *   any live state --no spare left, or stopped--> STOPPED
 * </pre>
 * A finished job leaves the table.
 */
public enum JobState {
    /** The ranks run; checkpoints are ordered on the job's schedule. */
    RUNNING,
    /** A failure is being repaired in place: survivors roll back, replacements start on the placement. */
    PAUSING,
    /**
     * Ranks move off a node at the next safe point, their state straight to a spare: nobody rolls
     * back. No checkpoint is ordered meanwhile.
     */
    MIGRATING,
    /** The whole job is being relaunched on a new plan, from its last committed epoch. */
    RESTARTING,
    /** Stopped for good (no spare left, or by the operator); checkpoints are kept for a relaunch. */
    STOPPED;

    /** Whether a failure is being repaired. */
    public boolean isRecovering() {
        return this == PAUSING || this == RESTARTING;
    }

    /**
     * Whether the ranks run on and commit epochs: RUNNING, and MIGRATING, whose ranks finish the
     * epoch under way (its copies to shared storage too) before they move.
     */
    public boolean takesCheckpoints() {
        return this == RUNNING || this == MIGRATING;
    }

    /** Whether the job still runs or will run again. */
    public boolean isLive() {
        return this != STOPPED;
    }
}
