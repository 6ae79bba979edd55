package org.mpirunft.launcher;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import org.mpirunft.bridge.control.PauseOrder;
import org.mpirunft.bridge.control.PauseWatcher;

/**
 * The files mpirun-ft writes into a job's rank control directory on the nodes, through the
 * daemons ({@code deliverRankControl}), and their JSON. Each is a small versioned record.
 */
public final class RankControlFiles {
    /** A {@link PauseOrder}: the ranks' pause watcher acts on each new id once. */
    public static final String PAUSE = PauseWatcher.ORDER_FILE;
    /** A {@link CheckpointOrder}: checkpoint at the next safe point. */
    public static final String CHECKPOINT_ORDER = "checkpoint.json";
    /** A {@link RankTableUpdate}: the node of every rank, after a recovery. */
    public static final String RANK_TABLE = "rank-table.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private RankControlFiles() {
    }

    /** An order to checkpoint {@code epoch} (the scheduler's number for it) at the next safe point. */
    public record CheckpointOrder(int version, long epoch) {
        public static final int VERSION = 1;

        public CheckpointOrder {
            if (version != VERSION) {
                throw new IllegalArgumentException("checkpoint order version " + version + " is not supported (expected " + VERSION + ")");
            }
        }

        public static CheckpointOrder of(long epoch) {
            return new CheckpointOrder(VERSION, epoch);
        }
    }

    /**
     * Where every rank runs: {@code rankNodes.get(r)} is rank r's node.
     *
     * @param failureId the recovery that produced this table, empty for a launch
     */
    public record RankTableUpdate(int version, String job, String failureId, List<String> rankNodes) {
        public static final int VERSION = 1;

        public RankTableUpdate {
            if (version != VERSION) {
                throw new IllegalArgumentException("rank table version " + version + " is not supported (expected " + VERSION + ")");
            }
            failureId = failureId == null ? "" : failureId;
            rankNodes = List.copyOf(rankNodes);
        }

        public static RankTableUpdate of(String job, String failureId, List<String> rankNodes) {
            return new RankTableUpdate(VERSION, job, failureId, rankNodes);
        }
    }

    public static String toJson(Object record) {
        try {
            return JSON.writeValueAsString(record);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode " + record.getClass().getSimpleName(), e);
        }
    }

    public static <T> T fromJson(String json, Class<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not a valid " + type.getSimpleName() + ": " + e.getOriginalMessage(), e);
        }
    }
}
