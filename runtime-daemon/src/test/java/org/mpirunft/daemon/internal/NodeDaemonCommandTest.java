package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class NodeDaemonCommandTest {
    private static final Path PRTED = Path.of("/usr/bin/prted");

    @Test
    void splitsPrrtesQuotedWordsAsTheRemoteShellWould() {
        // As PRRTE 5 words it for ssh (taken from a real launch).
        List<String> argv = NodeDaemonCommand.parse(List.of("prted", "--daemonize", "--prtemca", "ess", "\"env\"",
                "--prtemca", "prte_hnp_uri", "\"prterun-head-12277@0.0;tcp://10.213.0.254:53363:24\"",
                "--prtemca", "PREFIXES", "\"errmgr,ess,filem\""), PRTED);
        assertEquals(List.of("/usr/bin/prted", "--daemonize", "--prtemca", "ess", "env", "--prtemca", "prte_hnp_uri",
                "prterun-head-12277@0.0;tcp://10.213.0.254:53363:24", "--prtemca", "PREFIXES", "errmgr,ess,filem"), argv);
    }

    @Test
    void acceptsTheConfiguredAbsolutePathAndSingleQuotesAndBackslashes() {
        assertEquals(List.of("/usr/bin/prted", "a b", "c d", "e;f"),
                NodeDaemonCommand.parse(List.of("/usr/bin/prted 'a b' c\\ d \"e;f\""), PRTED));
    }

    @Test
    void refusesAnyOtherProgram() {
        String message = assertThrows(IllegalArgumentException.class,
                () -> NodeDaemonCommand.parse(List.of("/bin/sh", "-c", "id"), PRTED)).getMessage();
        assertTrue(message.contains("only Open MPI's node daemon /usr/bin/prted"), message);
        assertThrows(IllegalArgumentException.class, () -> NodeDaemonCommand.parse(List.of("/tmp/prted"), PRTED));
    }

    @Test
    void refusesWhatOnlyAShellWouldInterpret() {
        for (String attack : List.of("prted; rm -rf /", "prted && id", "prted | id", "prted > /etc/passwd", "prted $(id)",
                "prted `id`", "prted \"$HOME\"", "prted\nid", "prted 'unterminated")) {
            assertThrows(IllegalArgumentException.class, () -> NodeDaemonCommand.parse(List.of(attack), PRTED), attack);
        }
    }
}
