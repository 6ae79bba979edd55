package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JobRunnerTest {
    private static final HostPlan PLAN = new HostPlan(List.of(new HostSlot("node1", 1)), List.of(), 1, HostPlan.Mapping.BY_SLOT);

    @TempDir
    Path dir;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final List<String> lines = new CopyOnWriteArrayList<>();

    @AfterEach
    void stopTimer() {
        timer.shutdownNow();
    }

    private JobRunner.RunningJob start(Path mpirun, Duration exitTimeout, Duration grace) {
        MpirunCommand command = MpirunCommand.builder().mpirun(mpirun.toString()).hosts(PLAN).program(List.of("prog")).build();
        return new JobRunner(exitTimeout, grace, timer).start(command, Map.of("MPIRUN_FT_JOB", "j1"), out, err, null,
                (stream, line) -> lines.add(stream + " " + line));
    }

    @Test
    void streamsTheOutputUnchangedAndReturnsMpirunsStatus() throws Exception {
        Path mpirun = FakeMpirun.script(dir, "mpirun",
                "printf 'hello\\nrank 0 says\\tx\\n'; echo \"job=$MPIRUN_FT_JOB last=${!#}\"; printf 'partial'; echo oops >&2; exit 3");
        int status = start(mpirun, Duration.ofSeconds(10), Duration.ofSeconds(1)).exit().get(10, TimeUnit.SECONDS);
        assertEquals(3, status);
        assertEquals("hello\nrank 0 says\tx\njob=j1 last=prog\npartial", out.toString(StandardCharsets.UTF_8));
        assertEquals("oops\n", err.toString(StandardCharsets.UTF_8));
        assertTrue(lines.containsAll(List.of("STDOUT hello", "STDOUT rank 0 says\tx", "STDOUT job=j1 last=prog", "STDOUT partial",
                "STDERR oops")), lines.toString());
    }

    @Test
    void mpirunGoesWithoutTheVariablesToUnset() throws Exception {
        // HOME stands for a Slurm allocation's SLURM_* (this JVM has no allocation): any variable of mpirun-ft's own environment.
        assertTrue(System.getenv("HOME") != null, "the test needs a variable of this process's environment");
        Path mpirun = FakeMpirun.script(dir, "mpirun", "echo \"home=${HOME-unset} job=$MPIRUN_FT_JOB\"");
        MpirunCommand command = MpirunCommand.builder().mpirun(mpirun.toString()).hosts(PLAN).program(List.of("prog")).build();
        int status = new JobRunner(Duration.ofSeconds(10), Duration.ofSeconds(1), timer).start(command, Map.of("MPIRUN_FT_JOB", "j1"),
                List.of("HOME"), out, err, null, (stream, line) -> lines.add(stream + " " + line)).exit().get(10, TimeUnit.SECONDS);
        assertEquals(0, status);
        assertEquals("home=unset job=j1\n", out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void stopKillsMpirunsWholeTreeEvenWhenItIgnoresSigterm() throws Exception {
        Path pidFile = dir.resolve("child.pid");
        Path mpirun = FakeMpirun.script(dir, "mpirun",
                "trap '' TERM; sleep 300 & echo $! > " + pidFile + "; echo started; wait");
        JobRunner.RunningJob job = start(mpirun, Duration.ofSeconds(10), Duration.ofMillis(300));
        FakeMpirun.waitUntil(5000, "the child started", () -> Files.exists(pidFile) && lines.contains("STDOUT started"));
        long child = Long.parseLong(Files.readString(pidFile).strip());
        job.stop();
        int status = job.exit().get(10, TimeUnit.SECONDS);
        assertEquals(128 + 9, status, "SIGKILL after the grace period");
        FakeMpirun.waitUntil(5000, "the child is gone", () -> deadOrZombie(child));
        assertEquals(false, job.killedAfterFinish());
    }

    /**
     * What mpirun says as it goes down on SIGTERM (PRRTE names the node daemons it loses) reaches
     * the user and the launcher: the pipes stay open until mpirun has exited, and mpirun is not
     * killed by SIGPIPE in the middle of tearing its job down.
     */
    @Test
    void whatMpirunSaysAsAStopTakesItDownArrives() throws Exception {
        Path mpirun = FakeMpirun.script(dir, "mpirun",
                "trap 'kill $!; sleep 0.2; echo \"tearing down\" >&2; echo bye; exit 7' TERM; echo started; sleep 300 & wait");
        JobRunner.RunningJob job = start(mpirun, Duration.ofSeconds(10), Duration.ofSeconds(5));
        FakeMpirun.waitUntil(5000, "mpirun started", () -> lines.contains("STDOUT started"));
        job.stop();
        assertEquals(7, job.exit().get(10, TimeUnit.SECONDS), "mpirun's own status, not SIGPIPE's 141");
        assertTrue(lines.contains("STDERR tearing down") && lines.contains("STDOUT bye"), "its last lines: " + lines);
        assertTrue(err.toString(java.nio.charset.StandardCharsets.UTF_8).contains("tearing down"), err.toString());
    }

    @Test
    void boundsMpirunsExitOnceTheProgramFinished() throws Exception {
        Path mpirun = FakeMpirun.script(dir, "mpirun", "echo done; exec sleep 300");
        JobRunner.RunningJob job = start(mpirun, Duration.ofMillis(200), Duration.ofSeconds(2));
        FakeMpirun.waitUntil(5000, "the output arrived", () -> lines.contains("STDOUT done"));
        long start = System.nanoTime();
        job.programFinished();
        int status = job.exit().get(10, TimeUnit.SECONDS);
        assertEquals(128 + 15, status, "SIGTERM was enough");
        assertTrue(job.killedAfterFinish());
        assertTrue(System.nanoTime() - start >= 200_000_000L, "not before the bound");
    }

    @Test
    void aMissingMpirunIsAnInstallationError() {
        InstallationException e = assertThrows(InstallationException.class, () -> start(dir.resolve("nope/mpirun"), Duration.ofSeconds(1),
                Duration.ofSeconds(1)));
        assertTrue(e.getMessage().contains("set --mpirun, or MPI_HOME"), e.getMessage());
        assertThrows(InstallationException.class, () -> JobRunner.resolve("mpirun-that-does-not-exist", "/usr/bin:/bin"));
        assertEquals("/bin/sh", JobRunner.resolve("sh", "/nonexistent:/bin"));
    }

    /**
     * Whether {@code pid} was killed: gone, or a zombie. The orphaned child's reaper is PID 1
     * (or a subreaper), which in some containers never reaps; a zombie still counts as alive
     * to {@link ProcessHandle#isAlive}.
     */
    private static boolean deadOrZombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
        } catch (java.io.IOException e) {
            return true;
        }
    }
}
