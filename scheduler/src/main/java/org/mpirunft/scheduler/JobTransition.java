package org.mpirunft.scheduler;

/**
 * One applied transition of a job's state machine, as every daemon sees it: the update that
 * was applied and the job as it is after it ({@code after} is the record before the job left the
 * table, for {@link SchedulerUpdate.JobFinished}). Each daemon hands every transition it applies
 * to its listeners, once: the daemons of the job's nodes turn them into orders for their ranks,
 * the launcher's daemon streams them to mpirun-ft. A daemon that installs a newer table from
 * another replica gets the transitions it skipped, made up from the difference
 * ({@link #synthesized}).
 */
public record JobTransition(SchedulerUpdate update, JobRecord after, boolean synthesized) {
    public String job() {
        return after.job();
    }
}
