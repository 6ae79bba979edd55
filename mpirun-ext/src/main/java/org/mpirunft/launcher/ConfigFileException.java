package org.mpirunft.launcher;

/** The config file ({@code --config}) cannot be read, or a key or value in it is bad; the message names the file. */
public final class ConfigFileException extends LauncherException {
    private static final long serialVersionUID = 1L;

    public ConfigFileException(String message) {
        super(message);
    }
}
