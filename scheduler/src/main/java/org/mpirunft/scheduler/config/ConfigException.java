package org.mpirunft.scheduler.config;

import org.mpirunft.scheduler.SchedulerException;

/** A config file is unusable; the message names the file, the key and the problem, on one line. */
public final class ConfigException extends SchedulerException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
