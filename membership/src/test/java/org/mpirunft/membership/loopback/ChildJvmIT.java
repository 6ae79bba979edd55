package org.mpirunft.membership.loopback;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The one child-JVM launcher of the process-level tests, with a small child of its own. */
class ChildJvmIT {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path workDir;

    /**
     * The child: says "ready", the secret, arguments and directory it was given, then answers each stdin line. "spawn"
     * starts a long sleep and prints its pid, "err TEXT" writes TEXT on stderr, anything else is
     * echoed with a prefix the tests' parser keeps.
     */
    public static final class Child {
        public static void main(String[] args) throws Exception {
            System.out.println("ready " + System.getenv("CHILD_SECRET") + " " + String.join(" ", args) + " in "
                    + System.getProperty("user.dir"));
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                if (line.equals("spawn")) {
                    System.out.println("spawned " + new ProcessBuilder("sleep", "600").start().pid());
                } else if (line.startsWith("err ")) {
                    System.err.println(line.substring(4));
                } else {
                    System.out.println("echo " + line);
                }
            }
        }
    }

    private ChildJvm.Spec child() {
        return new ChildJvm.Spec("child", Child.class).args(List.of("a", "b")).environment("CHILD_SECRET", "s3")
                .workDir(workDir);
    }

    @Test
    void readsParsedLinesAnswersStdinAndKeepsStderrApart() throws Exception {
        try (ChildJvm<String> child = new ChildJvm<>(child(), line -> line.startsWith("echo ") || line.startsWith("ready ")
                ? line : null)) {
            String ready = "ready s3 a b in " + workDir.toRealPath();
            assertEquals(ready, child.await(l -> l.startsWith("ready"), WAIT).orElseThrow(),
                    "the class path holds in another directory; stderr:\n" + child.stderrTail());
            child.send("err on stderr");
            child.send("one");
            assertEquals("echo one", child.await(l -> l.startsWith("echo"), WAIT).orElseThrow());
            assertEquals(List.of(ready, "echo one"), child.lines(), "stderr is not among the lines");
            // The two streams are read by two threads: stderr's line may come in a little later.
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (child.stderrTail().isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals("on stderr", child.stderrTail());
        }
    }

    @Test
    void stderrToStdoutGivesOneStreamInOrder() throws Exception {
        try (ChildJvm<String> child = ChildJvm.start(child().stderrToStdout())) {
            child.send("err first");
            child.send("second");
            assertTrue(child.awaitAll(lines -> lines.contains("echo second"), WAIT), child.lines().toString());
            assertEquals(List.of("ready s3 a b in " + workDir.toRealPath(), "first", "echo second"), child.lines());
        }
    }

    @Test
    void closeKillsTheChildAndWhatItStartedAndAWaitEndsWithTheChild() throws Exception {
        ChildJvm<String> child = ChildJvm.start(child());
        child.send("spawn");
        long sleepPid = Long.parseLong(child.await(l -> l.startsWith("spawned "), WAIT).orElseThrow().substring(8));
        ProcessHandle sleep = ProcessHandle.of(sleepPid).orElseThrow();

        child.close();

        assertFalse(child.isAlive(), "the child is dead once close returns");
        sleep.onExit().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertTrue(child.await(l -> l.equals("never"), WAIT).isEmpty(), "nothing more comes from a dead child");
    }

    @Test
    void signalsGoToTheChild() throws Exception {
        try (ChildJvm<String> child = ChildJvm.start(child())) {
            child.await(l -> l.startsWith("ready"), WAIT).orElseThrow();
            child.signal("STOP");
            child.signal("CONT");
            child.send("after");
            assertTrue(child.await(l -> l.equals("echo after"), WAIT).isPresent(), "a continued child goes on");
            child.signal("TERM");
            assertTrue(child.process().waitFor(WAIT.toSeconds(), TimeUnit.SECONDS), "TERM ends it");
        }
    }
}
