package org.mpirunft.launcher;

/** A setting (an option, or a key of the config file) has a value that cannot be used. */
public final class BadSettingException extends LauncherException {
    private static final long serialVersionUID = 1L;
    private final String setting;

    public BadSettingException(String setting, String message) {
        super(setting + ": " + message);
        this.setting = setting;
    }

    /** The option or config key, as the user wrote it ({@code --spares}, {@code spares}). */
    public String setting() {
        return setting;
    }
}
