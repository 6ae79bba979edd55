package org.mpirunft.scheduler;

/** The root of the scheduler's exceptions. */
public class SchedulerException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SchedulerException(String message) {
        super(message);
    }

    public SchedulerException(String message, Throwable cause) {
        super(message, cause);
    }
}
