package org.mpirunft.scheduler;

import java.nio.file.Path;

/**
 * The persisted job table cannot be used: unreadable, corrupt, or of a version this daemon does
 * not read. The daemon refuses to start rather than replace it; the message is one line and
 * names the file.
 */
public final class JobTableFileException extends SchedulerException {
    private static final long serialVersionUID = 1L;

    private final transient Path file;

    public JobTableFileException(Path file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
        this.file = file;
    }

    public Path file() {
        return file;
    }
}
