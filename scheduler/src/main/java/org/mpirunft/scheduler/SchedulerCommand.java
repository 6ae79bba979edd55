package org.mpirunft.scheduler;

import java.util.Map;

/**
 * What the leader tells a job's launcher to do. {@link #key()} identifies the command: a
 * launcher acts on each key once, so a command re-sent by a new leader is harmless.
 */
public sealed interface SchedulerCommand {
    String job();

    String key();

    record Checkpoint(String job, long epoch) implements SchedulerCommand {
        @Override
        public String key() {
            return job + "/checkpoint/" + epoch;
        }
    }

    record Pause(String job, String failureId, Map<Integer, String> placement) implements SchedulerCommand {
        @Override
        public String key() {
            return job + "/pause/" + failureId;
        }
    }

    record Stop(String job, String reason) implements SchedulerCommand {
        @Override
        public String key() {
            return job + "/stop";
        }
    }
}
