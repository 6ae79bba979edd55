package org.mpirunft.membership.cli;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.util.List;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;

/**
 * One line of the {@code member} command's JSON output: an event, or the answer to a command.
 * Tests and the benchmark read these; {@code monoNanos} is {@link System#nanoTime()} when the
 * line was made, which on Linux is CLOCK_MONOTONIC and so comparable between processes of one
 * machine.
 *
 * @param v        format version
 * @param event    JOINED, LEFT, VIEW, NODE_JOINED, NODE_SUSPECTED, NODE_FAILED, NODE_LEFT,
 *                 PARTITION_HEALED, EXPELLED, ERROR, OK
 * @param self     the node that printed the line
 * @param node     the node the event is about, if any
 * @param viewId   the view of the event
 * @param members  the view's node names, coordinator first
 * @param detail   free text: the rendered view, a reason, an error
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EventLine(int v, String event, String self, String node, String memberId, long viewId,
                        List<String> members, long monoNanos, String detail) {
    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    public static EventLine of(String self, MembershipEvent event, long monoNanos) {
        ClusterView view = event.view();
        return switch (event) {
            case MembershipEvent.NodeJoined e -> about("NODE_JOINED", self, e.member(), view, monoNanos, null);
            case MembershipEvent.NodeSuspected e -> about("NODE_SUSPECTED", self, e.member(), view, monoNanos, null);
            case MembershipEvent.NodeFailed e -> about("NODE_FAILED", self, e.member(), view, monoNanos, null);
            case MembershipEvent.NodeLeft e -> about("NODE_LEFT", self, e.member(), view, monoNanos, null);
            case MembershipEvent.PartitionHealed e -> new EventLine(1, "PARTITION_HEALED", self, null, null, view.id(),
                    view.names(), monoNanos, e.subgroups().stream().map(g -> g.stream().map(Member::name).toList()).toList()
                    .toString());
            case MembershipEvent.Expelled e -> new EventLine(1, "EXPELLED", self, null, null, view.id(), view.names(),
                    monoNanos, e.reason() + ": " + e.detail());
        };
    }

    public static EventLine status(String event, String self, ClusterView view, String detail) {
        return new EventLine(1, event, self, null, null, view.id(), view.names(), System.nanoTime(), detail);
    }

    private static EventLine about(String type, String self, Member member, ClusterView view, long monoNanos, String detail) {
        return new EventLine(1, type, self, member.name(), member.id(), view.id(), view.names(), monoNanos, detail);
    }

    public String toJson() {
        try {
            return MAPPER.writeValueAsString(this);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write event line", e);
        }
    }

    /** Parses a line printed by {@link #toJson()}; null if the line is not one. */
    public static EventLine parse(String line) {
        if (line == null || !line.startsWith("{")) {
            return null;
        }
        try {
            return MAPPER.readValue(line, EventLine.class);
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** Human form of the line, for the text output mode. */
    public String toText() {
        String about = node == null ? "" : " " + node;
        String tail = detail == null ? "" : (detail.contains("\n") ? "\n" + detail : " " + detail);
        return event.toLowerCase().replace('_', '-') + about + " (view " + viewId + " " + members + ")" + tail;
    }
}
