package org.mpirunft.scheduler;

/**
 * The staggered flush: which of a job's nodes may copy their ranks' parts of an epoch to shared
 * storage now. The leader grants the waiting nodes their turn, in the order they asked, while
 * fewer than {@code storage.flush-writers} write (grants on their way count as writing). A writer
 * lost with its node holds its turn until the recovery, which drops the epoch.
 *
 * <p>Holds no state of its own: the turns are in the table ({@link JobRecord#flush}) and the
 * grants on their way in {@code proposals}, both guarded by the {@link SchedulerCore}'s lock.
 *
 * @param flushWriters {@code storage.flush-writers}: how many of a job's nodes may write at once; 0 for no limit
 */
record FlushTurns(int flushWriters, Proposals proposals) {
    /** Grants the job's waiting nodes their turn, as far as the writers' limit allows. */
    void grant(JobRecord job) {
        JobRecord.Flush flush = job.flush();
        if (!job.state().takesCheckpoints() || flush.waiting().isEmpty()) {
            return;
        }
        int limit = flushWriters > 0 ? flushWriters : Integer.MAX_VALUE;
        long writers = flush.writing().size() + proposals.flushGrantsInFlight(job.job(), flush.epoch());
        for (String node : flush.waiting()) {
            if (writers >= limit) {
                return;
            }
            if (!proposals.flushGrantInFlight(job.job(), flush.epoch(), node)) {
                proposals.propose(new SchedulerUpdate.FlushGranted(SchedulerUpdate.VERSION, job.job(), flush.epoch(), node));
                writers++;
            }
        }
    }
}
