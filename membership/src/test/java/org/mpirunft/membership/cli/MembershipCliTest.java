package org.mpirunft.membership.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class MembershipCliTest {
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return MembershipCli.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)).execute(args);
    }

    @Test
    void helpListsTheMemberCommand() {
        assertEquals(MembershipCli.EXIT_OK, run("--help"));
        assertTrue(out.toString().contains("member"), out.toString());
    }

    @Test
    void missingRequiredOptionsAreAUsageError() {
        assertEquals(MembershipCli.EXIT_USAGE, run("member", "--port", "7800"));
        assertTrue(err.toString().contains("--name"), err.toString());
    }

    @Test
    void badDurationsAreAUsageErrorThatSaysWhatIsExpected() {
        assertEquals(MembershipCli.EXIT_USAGE, run("member", "--name", "a", "--port", "7800", "--heartbeat-timeout", "soon"));
        assertTrue(err.toString().contains("--heartbeat-timeout") && err.toString().contains("must be a duration such as 30s"),
                err.toString());
    }

    @Test
    void eventLinesRoundTripAsJson() {
        EventLine line = new EventLine(1, "NODE_FAILED", "n1", "n3", "id", 4, List.of("n1", "n2"), 123, null);
        EventLine back = EventLine.parse(line.toJson());
        assertEquals(line, back);
        assertNull(EventLine.parse("12:00:00 INFO something else"), "log lines are not event lines");
        assertEquals("node-failed n3 (view 4 [n1, n2])", line.toText());
    }
}
