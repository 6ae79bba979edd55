package org.mpirunft.common;

/**
 * What to do when a rank must be replaced and no spare is free: the scheduler's
 * {@code policies.when-no-spare}, and a job's own {@code mpirunft.when.no.spare} when no daemon
 * places its replacements.
 */
public enum NoSpareAction {
    /** Place the rank on the least-loaded compute node that has a free slot. */
    USE_COMPUTE("use-compute"),
    /** Stop the job cleanly, keep its checkpoints, and say why. */
    STOP_JOB("stop-job"),
    /**
     * Go on with the survivors, in place: the ranks shrink the world and redistribute the last
     * committed epoch's block-distributed state over fewer ranks (issue 24).
     */
    SHRINK("shrink");

    private final String configName;

    NoSpareAction(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    public static NoSpareAction fromConfig(String value) {
        for (NoSpareAction action : values()) {
            if (action.configName.equals(value)) {
                return action;
            }
        }
        throw new IllegalArgumentException("must be use-compute, stop-job or shrink, got '" + value + "'");
    }
}
