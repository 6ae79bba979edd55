package org.mpirunft.scheduler;

/** A request names a job that is not in this daemon's job table. */
public final class UnknownJobException extends SchedulerException {
    private static final long serialVersionUID = 1L;

    private final String job;

    public UnknownJobException(String job) {
        super("no job '" + job + "' in the job table; register it first");
        this.job = job;
    }

    public String job() {
        return job;
    }
}
