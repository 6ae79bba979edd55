package org.mpirunft.launcher;

import java.nio.file.Path;

/** The config file ({@code --config}) cannot be read, or a key or value in it is bad. */
public final class ConfigFileException extends LauncherException {
    private static final long serialVersionUID = 1L;

    public ConfigFileException(Path file, String message) {
        super(file + ": " + message);
    }
}
