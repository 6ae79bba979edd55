package org.mpirunft.membership.internal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * The messages members exchange besides JGroups' own: small immutable records, serialized as
 * JSON by {@link WireCodec}. Each carries {@code v}, the format version; a receiver ignores
 * fields it does not know, so a newer member can add fields without breaking older ones.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = WireMessage.LoadReport.class, name = "load"),
        @JsonSubTypes.Type(value = WireMessage.LeaveIntent.class, name = "leave-intent"),
        @JsonSubTypes.Type(value = WireMessage.LeaveAck.class, name = "leave-ack"),
        @JsonSubTypes.Type(value = WireMessage.SuspectNotice.class, name = "suspect"),
        @JsonSubTypes.Type(value = WireMessage.ExpelledNotice.class, name = "expelled"),
})
public sealed interface WireMessage {
    int VERSION = 1;

    int v();

    /** A member's current load; {@code seq} orders reports from one member. */
    record LoadReport(int v, long seq, double loadAverage, int slotsInUse, String drain) implements WireMessage {
        public LoadReport {
            // A member of an older version reports no drain.
            drain = drain == null ? "" : drain;
        }

        LoadReport(int v, long seq, double loadAverage, int slotsInUse) {
            this(v, seq, loadAverage, slotsInUse, "");
        }
    }

    /**
     * Member {@code memberId} is about to leave. Sent by the leaver to all, and again by the
     * coordinator to members that joined while the leave was in progress.
     */
    record LeaveIntent(int v, String memberId) implements WireMessage {
    }

    /** The sender has recorded that {@code memberId} is leaving; sent to the leaver. */
    record LeaveAck(int v, String memberId) implements WireMessage {
    }

    /** The coordinator's verified suspicion of {@code memberIds}, sent just before it removes them. */
    record SuspectNotice(int v, List<String> memberIds) implements WireMessage {
        public SuspectNotice {
            memberIds = List.copyOf(memberIds);
        }
    }

    /**
     * Sent by a coordinator to a former member that it hears from although it removed it as
     * failed. {@code memberIds} is the coordinator's view, {@code coordinatorId} its first member.
     */
    record ExpelledNotice(int v, long viewId, String coordinatorId, List<String> memberIds) implements WireMessage {
        public ExpelledNotice {
            memberIds = List.copyOf(memberIds);
        }
    }
}
