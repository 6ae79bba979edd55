package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NodeDaemonCommandTest {
    private static final Path PRTED = Path.of("/usr/bin/prted");
    /** A node's environment in the simulated cluster: the image's Open MPI on the library path. */
    private static final Map<String, String> NODE_ENV = Map.of("LD_LIBRARY_PATH", "/opt/mpirun-ft/openmpi-5.0.7-ulfm-prrte5/lib");
    /** The image's libraries as PRRTE 5.0.0rc1 lists them for its prefix /usr (PRRTE's libdir basename, then PMIx's libdir). */
    private static final String PRRTE_LIBS = "/usr/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu/pmix2/lib";
    /** What follows prted in PRRTE 5's command (its quoting kept), taken from the same launch. */
    private static final List<String> PRTED_ARGS = List.of("--daemonize", "--prtemca", "ess", "\"env\"", "--prtemca", "prte_hnp_uri",
            "\"prterun-vm-30941@0.0;tcp://192.0.2.2:48457:24\"", "--prtemca", "plm", "\"ssh\"");

    @Test
    void splitsPrrtesQuotedWordsAsTheRemoteShellWould() {
        // As PRRTE 5 words it for ssh (taken from a real launch).
        NodeDaemonCommand command = NodeDaemonCommand.parse(List.of("prted", "--daemonize", "--prtemca", "ess", "\"env\"",
                "--prtemca", "prte_hnp_uri", "\"prterun-head-12277@0.0;tcp://10.213.0.254:53363:24\"",
                "--prtemca", "PREFIXES", "\"errmgr,ess,filem\""), PRTED, NODE_ENV);
        assertEquals(List.of("/usr/bin/prted", "--daemonize", "--prtemca", "ess", "env", "--prtemca", "prte_hnp_uri",
                "prterun-head-12277@0.0;tcp://10.213.0.254:53363:24", "--prtemca", "PREFIXES", "errmgr,ess,filem"), command.argv());
        assertEquals(Map.of(), command.environment(), "without a prefix nothing is added to prted's environment");
    }

    @Test
    void acceptsTheConfiguredAbsolutePathAndSingleQuotesAndBackslashes() {
        assertEquals(List.of("/usr/bin/prted", "a b", "c d", "e;f"),
                NodeDaemonCommand.parse(List.of("/usr/bin/prted 'a b' c\\ d \"e;f\""), PRTED, NODE_ENV).argv());
    }

    @Test
    void readsPrrtesBashPrefixIntoPrtedsEnvironmentWhenMpirunRunsByItsAbsolutePath() {
        // Exactly what PRRTE 5.0.0rc1 sent its launch agent for /opt/mpirun-ft/openmpi-5.0.7-ulfm-prrte5/bin/mpirun.
        String prefix = "PRTE_PREFIX=/usr;export PRTE_PREFIX;LD_LIBRARY_PATH=" + PRRTE_LIBS + ":$LD_LIBRARY_PATH;export LD_LIBRARY_PATH;"
                + "DYLD_LIBRARY_PATH=" + PRRTE_LIBS + ":$DYLD_LIBRARY_PATH;export DYLD_LIBRARY_PATH;/usr/bin/prted";
        NodeDaemonCommand command = NodeDaemonCommand.parse(words(prefix), PRTED, NODE_ENV);
        assertEquals(List.of("/usr/bin/prted", "--daemonize", "--prtemca", "ess", "env", "--prtemca", "prte_hnp_uri",
                "prterun-vm-30941@0.0;tcp://192.0.2.2:48457:24", "--prtemca", "plm", "ssh"), command.argv());
        assertEquals(Map.of("PRTE_PREFIX", "/usr",
                "LD_LIBRARY_PATH", PRRTE_LIBS + ":/opt/mpirun-ft/openmpi-5.0.7-ulfm-prrte5/lib",
                // Unset before: a shell would leave a trailing ':' (the working directory to the loader).
                "DYLD_LIBRARY_PATH", PRRTE_LIBS), command.environment());
    }

    @Test
    void readsThePmixPrefixAndAPassedLibraryPathAfterIt() {
        // setup_launch with a PRRTE prefix, a PMIx prefix and plm_ssh_pass_libpath=/site/lib.
        Path prted = Path.of("/opt/prrte/bin/prted");
        String prefix = "PRTE_PREFIX=/opt/prrte;export PRTE_PREFIX;PMIX_PREFIX=/opt/pmix;export PMIX_PREFIX;"
                + "LD_LIBRARY_PATH=/opt/prrte/lib:/opt/pmix/lib:$LD_LIBRARY_PATH;export LD_LIBRARY_PATH;"
                + "DYLD_LIBRARY_PATH=/opt/prrte/lib:/opt/pmix/lib:$DYLD_LIBRARY_PATH;export DYLD_LIBRARY_PATH;"
                + "LD_LIBRARY_PATH=/site/lib:$LD_LIBRARY_PATH;export LD_LIBRARY_PATH;"
                + "DYLD_LIBRARY_PATH=/site/lib:$DYLD_LIBRARY_PATH;export DYLD_LIBRARY_PATH;/opt/prrte/bin/prted";
        NodeDaemonCommand command = NodeDaemonCommand.parse(words(prefix), prted, Map.of("LD_LIBRARY_PATH", "/usr/local/lib"));
        assertEquals(Map.of("PRTE_PREFIX", "/opt/prrte", "PMIX_PREFIX", "/opt/pmix",
                "LD_LIBRARY_PATH", "/site/lib:/opt/prrte/lib:/opt/pmix/lib:/usr/local/lib",
                "DYLD_LIBRARY_PATH", "/site/lib:/opt/prrte/lib:/opt/pmix/lib"), command.environment());
        assertEquals("/opt/prrte/bin/prted", command.argv().getFirst());
    }

    @Test
    void readsPrrtesCshPrefixWhetherOrNotTheLibraryPathWasSet() {
        // setup_launch's [t]csh form: setenv, and LD_LIBRARY_PATH extended only if it was set.
        String prefix = "setenv PRTE_PREFIX /usr;if ( $?LD_LIBRARY_PATH == 1 ) set PRTE_have_llp;"
                + "if ( $?LD_LIBRARY_PATH == 0 ) setenv LD_LIBRARY_PATH " + PRRTE_LIBS + ";"
                + "if ( $?PRTE_have_llp == 1 ) setenv LD_LIBRARY_PATH " + PRRTE_LIBS + ":$LD_LIBRARY_PATH;/usr/bin/prted";
        assertEquals(Map.of("PRTE_PREFIX", "/usr", "LD_LIBRARY_PATH", PRRTE_LIBS + ":/opt/mpirun-ft/openmpi-5.0.7-ulfm-prrte5/lib"),
                NodeDaemonCommand.parse(words(prefix), PRTED, NODE_ENV).environment());
        assertEquals(Map.of("PRTE_PREFIX", "/usr", "LD_LIBRARY_PATH", PRRTE_LIBS),
                NodeDaemonCommand.parse(words(prefix), PRTED, Map.of()).environment());
    }

    @Test
    void acceptsAnotherPathToTheConfiguredPrtedButRunsTheConfiguredOne(@TempDir Path dir) throws IOException {
        // As /bin/prted is /usr/bin/prted where /bin links to /usr/bin.
        Path prted = Files.createFile(Files.createDirectories(dir.resolve("usr/bin")).resolve("prted"));
        Files.createSymbolicLink(dir.resolve("bin"), dir.resolve("usr/bin"));
        String alias = dir.resolve("bin/prted").toString();
        NodeDaemonCommand command = NodeDaemonCommand.parse(List.of("PRTE_PREFIX=" + dir + ";export PRTE_PREFIX;" + alias, "--daemonize"),
                prted, Map.of());
        assertEquals(List.of(prted.toString(), "--daemonize"), command.argv());
    }

    @Test
    void refusesAPrtedThatOnlyThePrefixPointsAt() {
        String message = refusal("PRTE_PREFIX=/tmp/x;export PRTE_PREFIX;/tmp/x/bin/prted");
        assertTrue(message.contains("only Open MPI's node daemon /usr/bin/prted may be launched, not '/tmp/x/bin/prted'"), message);
        assertTrue(message.contains("runtime.prted"), message);
    }

    @Test
    void refusesAnyOtherVariable() {
        for (String variable : List.of("LD_PRELOAD", "PATH", "OPAL_PREFIX")) {
            String message = refusal(variable + "=/opt/x;export " + variable + ";/usr/bin/prted");
            assertTrue(message.endsWith("for the node daemon, not " + variable), message);
        }
        String message = refusal("setenv LD_PRELOAD /tmp/x.so;/usr/bin/prted");
        assertTrue(message.endsWith("not LD_PRELOAD"), message);
    }

    @Test
    void refusesExpansionsOtherThanTheVariablesOwnValue() {
        for (String value : List.of("$(id)", "`id`", "$HOME/lib", "${LD_LIBRARY_PATH}", "lib", "/a b")) {
            String message = refusal("LD_LIBRARY_PATH=" + value + ":$LD_LIBRARY_PATH;export LD_LIBRARY_PATH;/usr/bin/prted");
            assertTrue(message.startsWith("LD_LIBRARY_PATH may hold only absolute directories and its own value ($LD_LIBRARY_PATH), not '"),
                    message);
            assertTrue(message.contains(value.split(" ")[0]), message);
        }
        String message = refusal("PRTE_PREFIX=$(id);export PRTE_PREFIX;/usr/bin/prted");
        assertEquals("PRTE_PREFIX must be an absolute directory, not '$(id)'", message);
    }

    @Test
    void refusesACommandBetweenTheAssignmentsThatIsNotTheirExport() {
        assertEquals("'PRTE_PREFIX=/usr' must be followed by 'export PRTE_PREFIX', not 'id'",
                refusal("PRTE_PREFIX=/usr;id;/usr/bin/prted"));
        assertEquals("'PRTE_PREFIX=/usr' must be followed by 'export PRTE_PREFIX', not 'export PATH'",
                refusal("PRTE_PREFIX=/usr;export PATH;/usr/bin/prted"));
        // plm_ssh_chdir's "cd DIR" needs a shell too.
        assertEquals("only PRRTE's environment assignments may come before its node daemon, not 'cd /tmp'",
                refusal("cd /tmp;PRTE_PREFIX=/usr;export PRTE_PREFIX;/usr/bin/prted"));
        assertEquals("only PRRTE's environment assignments may come before its node daemon, not 'if ( $?LD_LIBRARY_PATH == 1 ) id'",
                refusal("if ( $?LD_LIBRARY_PATH == 1 ) id;/usr/bin/prted"));
        assertEquals("no command after the last ';'", assertThrows(IllegalArgumentException.class,
                () -> NodeDaemonCommand.parse(List.of("PRTE_PREFIX=/usr;export PRTE_PREFIX;"), PRTED, NODE_ENV)).getMessage());
    }

    @Test
    void refusesPrrtesShForm() {
        // For a remote sh or ksh PRRTE wraps the command in a subshell that sources .profile.
        List<String> words = List.of("(", "test", "!", "-r", "./.profile", "||", ".",
                "./.profile;PRTE_PREFIX=/usr;export PRTE_PREFIX;/usr/bin/prted", "--daemonize", ")");
        String message = assertThrows(IllegalArgumentException.class, () -> NodeDaemonCommand.parse(words, PRTED, NODE_ENV)).getMessage();
        assertEquals("shell syntax ')' is not allowed in a launch command", message);
    }

    @Test
    void refusesAnyOtherProgram() {
        String message = assertThrows(IllegalArgumentException.class,
                () -> NodeDaemonCommand.parse(List.of("/bin/sh", "-c", "id"), PRTED, NODE_ENV)).getMessage();
        assertTrue(message.contains("only Open MPI's node daemon /usr/bin/prted"), message);
        assertThrows(IllegalArgumentException.class, () -> NodeDaemonCommand.parse(List.of("/tmp/prted"), PRTED, NODE_ENV));
    }

    @Test
    void refusesWhatOnlyAShellWouldInterpret() {
        for (String attack : List.of("prted; rm -rf /", "prted && id", "prted | id", "prted > /etc/passwd", "prted $(id)",
                "prted `id`", "prted \"$HOME\"", "prted\nid", "prted 'unterminated")) {
            assertThrows(IllegalArgumentException.class, () -> NodeDaemonCommand.parse(List.of(attack), PRTED, NODE_ENV), attack);
        }
        assertEquals("only Open MPI's node daemon /usr/bin/prted may be launched, not 'rm'", refusal("prted; rm -rf /"));
    }

    /** PRRTE's command as its launch agent gets it: the prefix and prted in one word, then prted's arguments. */
    private static List<String> words(String prefixAndPrted) {
        return Stream.concat(Stream.of(prefixAndPrted), PRTED_ARGS.stream()).toList();
    }

    private static String refusal(String command) {
        return assertThrows(IllegalArgumentException.class, () -> NodeDaemonCommand.parse(words(command), PRTED, NODE_ENV)).getMessage();
    }
}
