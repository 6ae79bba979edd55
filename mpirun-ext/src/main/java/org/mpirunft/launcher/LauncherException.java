package org.mpirunft.launcher;

/**
 * The root of mpirun-ft's own exceptions. The message is one line, fit for a user: it says what
 * is wrong and, where it can, what to do. The command line maps each subclass to an exit code.
 * A bad option value is the exception: {@link BadSettingException} is common's
 * {@code BadValueException}, the setting error every module shares.
 */
public class LauncherException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LauncherException(String message) {
        super(message);
    }

    public LauncherException(String message, Throwable cause) {
        super(message, cause);
    }
}
