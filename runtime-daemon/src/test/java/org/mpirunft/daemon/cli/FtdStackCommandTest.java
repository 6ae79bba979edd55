package org.mpirunft.daemon.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.StackFile;
import picocli.CommandLine;

class FtdStackCommandTest {
    @Test
    void printsTheShippedStackForOperatorsToCopy() {
        StringWriter out = new StringWriter();
        CommandLine line = FtdCli.newCommandLine();
        line.setOut(new PrintWriter(out));
        assertEquals(0, line.execute("stack"));
        assertEquals(StackFile.shippedXml(), out.toString());
        assertTrue(out.toString().contains("<FD_ALL timeout=\"${mpirunft.heartbeat_timeout}\""), out.toString());
    }

    @Test
    void itsUsageShowsTheVariablesSyntaxAsWritten() {
        String usage = FtdCli.newCommandLine().getSubcommands().get("stack").getUsageMessage();
        assertTrue(usage.contains("${mpirunft.*}"), usage);
    }
}
