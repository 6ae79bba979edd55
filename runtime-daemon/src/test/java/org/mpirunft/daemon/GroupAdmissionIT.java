package org.mpirunft.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.cli.FtdCli;
import org.mpirunft.membership.loopback.ChildJvm;

/**
 * A daemon the group does not admit (another cluster secret, or another encryption setting)
 * exits with one line and {@link FtdCli.Exit#NOT_ADMITTED}, and never appears in a view of the
 * group's daemons. With encryption on (the default) the group cannot decrypt such a daemon's
 * join requests, so they go unanswered: the refusal takes GMS's join attempts (10 x the FAST
 * profile's 500 ms join timeout, plus discovery).
 */
class GroupAdmissionIT {
    private static final Duration EXIT_BOUND = Duration.ofSeconds(60);

    @TempDir
    static Path directory;
    @AutoClose
    static LoopbackDaemons daemons;

    @BeforeAll
    static void startDaemons() throws IOException {
        daemons = LoopbackDaemons.start(directory, 2);
    }

    @Test
    void daemonWithTheWrongSecretExitsWithOneLineAndNeverAppearsInAView() throws Exception {
        long started = System.nanoTime();
        ChildJvm<String> intruder = daemons.startAnother("intruder",
                "not-the-secret-of-this-group-000".getBytes(StandardCharsets.UTF_8), "");
        assertNotAdmitted(intruder, started, "cluster secret");
    }

    @Test
    void daemonWithEncryptionOffIsNotAdmittedToTheEncryptedGroupAndWarnsOnce() throws Exception {
        long started = System.nanoTime();
        ChildJvm<String> plain = daemons.startAnother("plain", LoopbackDaemons.SECRET.getBytes(StandardCharsets.UTF_8),
                "encryption: false");
        assertNotAdmitted(plain, started, "encryption setting");
        List<String> warnings = plain.lines().stream().filter(l -> l.contains("group encryption is off")).toList();
        assertEquals(1, warnings.size(), "one warning at start: " + plain.lines());
        assertTrue(warnings.getFirst().contains("WARNING"), warnings.getFirst());
    }

    private static void assertNotAdmitted(ChildJvm<String> outsider, long started, String cause) throws Exception {
        String name = outsider.name();
        assertTrue(outsider.process().waitFor(EXIT_BOUND.toSeconds(), TimeUnit.SECONDS),
                name + " should give up within " + EXIT_BOUND + ":\n" + String.join("\n", outsider.lines()));
        System.out.printf("%s exited %d after %d ms%n", name, outsider.process().exitValue(),
                Duration.ofNanos(System.nanoTime() - started).toMillis());
        String output = String.join("\n", outsider.lines());
        assertEquals(FtdCli.Exit.NOT_ADMITTED.code, outsider.process().exitValue(), "exit code; output:\n" + output);
        List<String> errors = outsider.lines().stream().filter(l -> l.startsWith("ftd: ")).toList();
        assertEquals(1, errors.size(), "one error line:\n" + output);
        assertTrue(errors.getFirst().contains("not admitted") && errors.getFirst().contains(cause), errors.getFirst());

        // Never in a view: no view any daemon logged or reports lists it.
        Pattern viewWithIt = Pattern.compile("view .*\\[[^\\]]*\\b" + name + "\\b[^\\]]*\\]");
        for (int i = 0; i < 2; i++) {
            int index = i;
            assertTrue(daemons.log(i).lines().noneMatch(l -> viewWithIt.matcher(l).find()),
                    daemons.name(i) + " logged a view with " + name + ":\n" + daemons.log(index));
            assertEquals(List.of("d1", "d2"), daemons.client(i).status().members().stream().map(m -> m.name()).sorted().toList(),
                    daemons.name(i) + "'s members");
        }
    }
}
