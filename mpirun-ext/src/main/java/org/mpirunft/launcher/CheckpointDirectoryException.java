package org.mpirunft.launcher;

import java.nio.file.Path;

/** The checkpoint directory cannot be created or written, so the job could never be restarted. */
public final class CheckpointDirectoryException extends LauncherException {
    private static final long serialVersionUID = 1L;

    public CheckpointDirectoryException(Path directory, String reason, Throwable cause) {
        super("checkpoint directory " + directory + " is not writable: " + reason
                + " (choose another with --checkpoint-dir, or fix its permissions)", cause);
    }
}
