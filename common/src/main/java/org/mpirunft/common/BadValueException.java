package org.mpirunft.common;

/**
 * A setting whose value is wrong, from any source (a command-line option, a config file key, a
 * system property). The message is one line naming the setting and what is wrong with it, ready
 * for the user: {@code checkpoint.interval: must be a duration such as 30s, 10m, 1h, got 'soon'}.
 */
public class BadValueException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final String setting;
    private final String problem;

    public BadValueException(String setting, String problem) {
        super(setting + ": " + problem);
        this.setting = setting;
        this.problem = problem;
    }

    /** The setting's name as the user wrote it. */
    public String setting() {
        return setting;
    }

    /**
     * What is wrong, without the setting's name: for a caller that reports the value under
     * another name (a config file's key where the parser was handed an option's name).
     */
    public String problem() {
        return problem;
    }
}
