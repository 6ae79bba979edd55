package org.mpirunft.common;

/**
 * A setting whose value is wrong, from any source (a command-line option, a config file key, a
 * system property). The message is one line naming the setting and what is wrong with it, ready
 * for the user: {@code checkpoint.interval: must be a duration such as 30s, 10m, 1h, got 'soon'}.
 */
public class BadValueException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String setting;

    public BadValueException(String setting, String problem) {
        super(setting + ": " + problem);
        this.setting = setting;
    }

    /** The setting's name as the user wrote it. */
    public String setting() {
        return setting;
    }
}
