package org.mpirunft.membership.loopback;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.mpirunft.membership.cli.EventLine;

/**
 * One member of a {@link LoopbackCluster}: a child JVM running {@code membership member
 * --events json}, its stdout read as {@link EventLine}s. Stdin takes the member's commands
 * (see {@code MemberCommand}).
 */
public final class MemberProcess extends ChildJvm<EventLine> {
    private final int port;

    MemberProcess(ChildJvm.Spec spec, int port) throws IOException {
        super(spec, EventLine::parse);
        this.port = port;
    }

    public int port() {
        return port;
    }

    /** Waits for a line of type {@code event}, optionally about {@code node}. */
    public Optional<EventLine> await(String event, String node, Duration timeout) throws InterruptedException {
        return await(l -> l.event().equals(event) && (node == null || node.equals(l.node())), timeout);
    }

    /** The membership events (NODE_*, PARTITION_HEALED, EXPELLED) so far, in order. */
    public List<EventLine> events() {
        return lines().stream().filter(l -> l.event().startsWith("NODE_") || l.event().equals("PARTITION_HEALED")
                || l.event().equals("EXPELLED")).toList();
    }

    /** The last view this member reported in any line, or empty before the first. */
    public List<String> lastViewMembers() {
        List<EventLine> lines = lines();
        for (int i = lines.size() - 1; i >= 0; i--) {
            EventLine l = lines.get(i);
            if (l.members() != null && !l.event().equals("LEFT")) {
                return l.members();
            }
        }
        return List.of();
    }

    @Override
    public String toString() {
        return name() + "(pid " + pid() + ", port " + port + ")";
    }
}
