package org.mpirunft.scheduler.loopback;

import java.io.IOException;
import java.util.List;
import org.mpirunft.membership.loopback.ChildJvm;
import org.mpirunft.scheduler.cli.NodeLine;

/**
 * One {@code scheduler-node} child JVM of a {@link SchedulerCluster}, its stdout read as
 * {@link NodeLine}s. Stdin takes its requests (see {@code SchedulerNode}).
 */
public final class SchedulerNodeProcess extends ChildJvm<NodeLine> {
    SchedulerNodeProcess(ChildJvm.Spec spec) throws IOException {
        super(spec, NodeLine::parse);
    }

    /** The lines of one event type (CHECKPOINT, PAUSE, MEMBERSHIP, ...), in order. */
    public List<NodeLine> lines(String event) {
        return lines().stream().filter(l -> l.event().equals(event)).toList();
    }
}
