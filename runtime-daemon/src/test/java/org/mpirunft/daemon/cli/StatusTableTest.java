package org.mpirunft.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.daemon.protocol.ControlReply;

class StatusTableTest {
    private static ControlReply.StatusReport report(String leader, long term, List<String> voters) {
        return new ControlReply.StatusReport(ControlReply.VERSION, "node5", "compute", true, false, leader, 53,
                List.of(new ControlReply.MemberStatus("node4", "compute", 1, 0, 0.5, "10.213.0.4:7801", "")), List.of(), List.of(), "",
                term, voters);
    }

    /** A daemon that names no leader shows its log's term and voters, where an operator sees whether it is behind or ahead. */
    @Test
    void showsTheReplicatedLogsTermAndVoters() {
        String text = StatusTable.render(report("", 7, List.of("10.213.0.4:7800", "10.213.0.5:7800")));
        assertTrue(text.startsWith("node node5 (compute), view 53 with 1 members, scheduler leader -\n"), text);
        assertTrue(text.contains("replicated log: term 7, voters 10.213.0.4:7800, 10.213.0.5:7800\n"), text);
        assertFalse(StatusTable.render(report("node4", 0, List.of())).contains("replicated log"), "a daemon with no scheduler has no log");
    }
}
