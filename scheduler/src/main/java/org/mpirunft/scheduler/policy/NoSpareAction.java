package org.mpirunft.scheduler.policy;

/** What to do when a rank must be replaced and no spare is free ({@code policies.when-no-spare}). */
public enum NoSpareAction {
    /** Place the rank on the least-loaded compute node that has a free slot. */
    USE_COMPUTE("use-compute"),
    /** Stop the job cleanly, keep its checkpoints, and say why. */
    STOP_JOB("stop-job");

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
        throw new IllegalArgumentException("must be use-compute or stop-job, got '" + value + "'");
    }
}
