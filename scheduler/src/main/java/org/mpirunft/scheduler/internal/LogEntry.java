package org.mpirunft.scheduler.internal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * An entry of the group's replicated log as the scheduler writes it: JSON by
 * {@link SchedulerCodec}, with {@code v}, the format version. Only the leader appends; every
 * daemon applies the committed entries in log order ({@link LogReplica}).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = LogEntry.Update.class, name = "update"),
        @JsonSubTypes.Type(value = LogEntry.LeaderStarted.class, name = "leader-started"),
        @JsonSubTypes.Type(value = LogEntry.Imported.class, name = "imported")})
public sealed interface LogEntry {
    int VERSION = 1;

    int v();

    /** A decision of the leader, or a request it granted. */
    record Update(int v, SchedulerUpdate update) implements LogEntry {
    }

    /**
     * The first entry of a leader's term. Once it applied it, the leader's table holds every
     * entry an earlier leader committed, and it may decide from it.
     */
    record LeaderStarted(int v, String node, long term) implements LogEntry {
    }

    /**
     * The job table of a scheduler that kept it in a file (an older release, or the disaster
     * copy), taken into a log that has never had a table; later ones are ignored.
     */
    record Imported(int v, List<JobRecord> jobs) implements LogEntry {
        public Imported {
            jobs = List.copyOf(jobs);
        }
    }

    /** What a snapshot of the log holds: the table and whether a table was imported. */
    record Snapshot(int v, boolean imported, List<JobRecord> jobs) {
        public Snapshot {
            jobs = List.copyOf(jobs);
        }
    }
}
