package org.mpirunft.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * One attempt of a scripts/chaos job as the campaign watches it, whichever way mpirun-ft runs:
 * in the campaign's JVM ({@link ClusterJob}, the rank library's programs) or on the head node
 * ({@link HeadNodeJob}, transparent mode, where mpirun's output pipes must be the node's).
 */
interface ChaosJob {
    String id();

    /** System.nanoTime() at the launch. */
    long startedNanos();

    boolean ended();

    /** The output lines completed after {@code afterNanos}, in order. */
    List<ClusterJob.TimedLine> linesAfter(long afterNanos);

    String output();

    Path eventLog();

    default List<JsonNode> events() throws IOException {
        return EventLog.read(eventLog());
    }

    /** mpirun-ft's exit code, waiting at most {@code boundSeconds}: past it, a {@link java.util.concurrent.TimeoutException}. */
    int exitCode(long boundSeconds) throws Exception;

    /** Lets go of a launcher that did not end after the job was killed (its process, if it has one). */
    default void abandon() {
    }

    static ChaosJob of(ClusterJob job) {
        return new ChaosJob() {
            @Override
            public String id() {
                return job.id;
            }

            @Override
            public long startedNanos() {
                return job.startedNanos;
            }

            @Override
            public boolean ended() {
                return job.ended();
            }

            @Override
            public List<ClusterJob.TimedLine> linesAfter(long afterNanos) {
                return job.linesAfter(afterNanos);
            }

            @Override
            public String output() {
                return job.output();
            }

            @Override
            public Path eventLog() {
                return job.eventLog;
            }

            @Override
            public int exitCode(long boundSeconds) throws Exception {
                return job.exitCode(boundSeconds);
            }
        };
    }
}
