package org.mpirunft.launcher;

import org.mpirunft.common.BadValueException;

/**
 * A setting (an option, or a key of the config file) has a value that cannot be used. It is a
 * {@link BadValueException}, the one-line setting error of every module, so what common's parsers
 * throw ({@code Durations}, {@code Names}) and what mpirun-ft throws itself are one kind of error:
 * {@link ExitCode#USAGE}, and a config file's key when the value came from the file.
 */
public final class BadSettingException extends BadValueException {
    private static final long serialVersionUID = 1L;

    /** {@code setting} as the user wrote it: {@code --spares}, {@code spares}. */
    public BadSettingException(String setting, String message) {
        super(setting, message);
    }
}
