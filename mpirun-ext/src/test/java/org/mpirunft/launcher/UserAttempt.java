package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.mpirunft.testkit.SimulatedCluster;

/** What one command an ordinary user ran on a node printed, and how it ended: for tests of what users may not do. */
record UserAttempt(int exit, String output) {

    /** Runs {@code command} as {@code user} on {@code node}, its input closed; bounded at 60 s. */
    static UserAttempt run(SimulatedCluster cluster, String user, String node, String... command) throws Exception {
        Process process = cluster.startAs(user, node, List.of(command));
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " ended");
        return new UserAttempt(process.exitValue(), output);
    }

    /** Refused: a non-zero exit and one line that says {@code why}. */
    static void assertRefused(UserAttempt attempt, String why) {
        assertNotEquals(0, attempt.exit, attempt.output);
        List<String> lines = attempt.output.lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), "one line: " + attempt.output);
        assertTrue(lines.getFirst().contains(why), "'" + why + "' in: " + lines.getFirst());
    }
}
