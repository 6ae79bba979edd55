package org.mpirunft.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ControlRequest;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.launcher.EventLog;
import org.mpirunft.launcher.ExitCode;
import org.mpirunft.launcher.FakeDaemon;
import org.mpirunft.scheduler.SchedulerUpdate;
import org.mpirunft.common.rank.RankMessage;

/**
 * The whole command against a fake daemon (a real Unix socket) and a fake mpirun (a bash script
 * that records its argv and plays a scenario), so every path from options to exit code runs
 * without MPI.
 */
class MpirunFtCliTest {
    private static final String JOB = "cli-job";
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;
    private FakeDaemon daemon;
    /** The program's jar: it holds the rank library, so the program gets warm spares by default. */
    private Path app;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void start() throws IOException {
        daemon = new FakeDaemon(dir.resolve("ftd.sock"));
        daemon.status(FakeDaemon.status("head", List.of(FakeDaemon.member("node1", "COMPUTE", 1),
                FakeDaemon.member("node2", "COMPUTE", 1), FakeDaemon.member("spare1", "SPARE", 1))));
        app = dir.resolve("app.jar");
        try (java.util.jar.JarOutputStream jar = new java.util.jar.JarOutputStream(Files.newOutputStream(app))) {
            jar.putNextEntry(new java.util.jar.JarEntry("org/mpirunft/bridge/FtRank.class"));
            jar.closeEntry();
        }
    }

    @AfterEach
    void stop() throws IOException {
        daemon.close();
    }

    private int run(String... args) {
        return runWith(Map.of("MPIRUN_FT_SOCKET", daemon.socket().toString()), Optional.empty(), args);
    }

    private int runWith(Map<String, String> env, Optional<Path> siteConfig, String... args) {
        CliContext context = new CliContext(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8), null, env, DaemonClient::new, Optional.empty(), Clock.systemUTC(),
                siteConfig);
        return MpirunFtCli.execute(args, context);
    }

    private CompletableFuture<Integer> runInBackground(String... args) {
        return CompletableFuture.supplyAsync(() -> run(args));
    }

    /** The usual options of a job on node1 and node2 with spare1, and this scenario as mpirun. */
    private String[] job(String scenario, String... more) throws IOException {
        return jobOf(List.of("java", "-cp", app.toString(), "App", "-x", "1"), scenario, more);
    }

    /** As {@link #job}, of {@code program}. */
    private String[] jobOf(List<String> program, String scenario, String... more) throws IOException {
        Path mpirun = dir.resolve("mpirun");
        Files.writeString(mpirun, """
                #!/usr/bin/env bash
                n=$(( $(cat %1$s/runs 2>/dev/null || echo 0) + 1 )); echo $n > %1$s/runs
                printf '%%s\\n' "$@" > %1$s/argv.$n
                echo "$MPIRUN_FT_JOB" > %1$s/env.$n
                %2$s
                """.formatted(dir, scenario));
        Files.setPosixFilePermissions(mpirun, PosixFilePermissions.fromString("rwxr-xr-x"));
        List<String> args = new ArrayList<>(List.of("--job", JOB, "--mpirun", mpirun.toString(), "--agent", "/opt/ftd agent",
                "--checkpoint-dir", dir.resolve("ck").toString(), "--stop-grace", "2s", "--exit-timeout", "2s"));
        args.addAll(List.of(more));
        args.addAll(List.of("-np", "2", "--mca", "btl", "tcp,self"));
        args.addAll(program);
        return args.toArray(String[]::new);
    }

    private List<String> argv(int run) throws IOException {
        return Files.readAllLines(dir.resolve("argv." + run));
    }

    /** The value of {@code -x JDK_JAVA_OPTIONS=...} in an mpirun argv, the first context's. */
    private static Optional<String> jvmOptions(List<String> argv) {
        return exported(argv, "JDK_JAVA_OPTIONS");
    }

    /** The value of {@code -x NAME=...} in an mpirun argv, the first context's. */
    private static Optional<String> exported(List<String> argv, String name) {
        for (int i = 0; i + 1 < argv.size(); i++) {
            if (argv.get(i).equals("-x") && argv.get(i + 1).startsWith(name + "=")) {
                return Optional.of(argv.get(i + 1).substring(name.length() + 1));
            }
        }
        return Optional.empty();
    }

    private List<JsonNode> events() {
        return EventLog.read(mine().resolve(JOB).resolve("events.jsonl"));
    }

    private List<String> eventTypes() {
        return events().stream().map(e -> e.get("type").asText()).toList();
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private void assertOneLineError(String expected) {
        String text = err();
        assertEquals(1, text.lines().count(), "one line, no stack trace: " + text);
        assertTrue(text.startsWith("mpirun-ft: "), text);
        assertTrue(text.contains(expected), text);
    }

    /** The user's directory in the test's checkpoint storage, where a job's files go (PrivateDirectories). */
    private Path mine() {
        return dir.resolve("ck").resolve(PrivateDirectories.currentUser());
    }

    @Test
    void runsTheJobThroughMpirunAndExitsWithItsStatus() throws IOException {
        int status = run(job("echo hello from rank 0; exit 0"));
        assertEquals(0, status, err());
        assertEquals("hello from rank 0\n", out.toString(StandardCharsets.UTF_8));
        List<String> argv = argv(1);
        String probe = exported(argv, "MPIRUN_FT_AOT_PROBE").orElseThrow();
        assertTrue(probe.matches(java.util.regex.Pattern.quote(mine().resolve(".aot-cache") + "/") + "[0-9a-f]{16}\\.trainable"),
                "the program's first run asks its rank 0 whether its JVM can train an AOT cache: " + probe);
        assertEquals(List.of("--with-ft", "ulfm", "--mca", "coll", "^han", "--mca", "coll_ftagree_era_topology", "2", "--prtemca", "plm_ssh_agent", "/opt/ftd agent",
                "--prtemca", "plm_ssh_no_tree_spawn", "1", "--prtemca", "pmix_terminate_connected", "0", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1",
                "--host", "node1:1,node2:1,spare1:1", "-np", "2",
                "-x", "MPIRUN_FT_JOB=" + JOB, "-x", "MPIRUN_FT_SHARED_DIR=" + mine(),
                "-x", "MPIRUN_FT_SPARES=spare1", "-x", "MPIRUN_FT_WARM_SPARES=1", "-x", "MPIRUN_FT_AOT_PROBE=" + probe,
                "--mca", "btl", "tcp,self", "java", "-cp", app.toString(), "App", "-x", "1",
                ":", "--host", "spare1:1", "-np", "1",
                "-x", "MPIRUN_FT_JOB=" + JOB, "-x", "MPIRUN_FT_SHARED_DIR=" + mine(),
                "-x", "MPIRUN_FT_SPARES=spare1", "-x", "MPIRUN_FT_WARM_SPARES=1", "-x", "MPIRUN_FT_AOT_PROBE=" + probe,
                "-x", "MPIRUN_FT_WARM_SPARE=1",
                "java", "-cp", app.toString(), "App", "-x", "1"), argv);
        assertEquals(JOB, Files.readString(dir.resolve("env.1")).strip(), "the launch agent tags node daemons with the job");
        assertEquals(List.of(new ControlRequest.RegisterJob(ControlRequest.VERSION, JOB, List.of("node1", "node2"), List.of("spare1"),
                "pause", "", 10)), daemon.requests(ControlRequest.RegisterJob.class), "the job's mode, spares and schedule go to the scheduler");
        assertEquals(List.of(new ControlRequest.JobFinished(ControlRequest.VERSION, JOB, 0)), daemon.requests(ControlRequest.JobFinished.class));
        assertEquals(List.of("launch", "exit"), eventTypes());
    }

    /**
     * mpirun here plays the JVMs of a Java job: rank 0's answer to the probe (yes, it can train),
     * the launcher's note on stderr, and when training, the rank caches (two whole ones and a
     * torn one) and the cache builder's line, which repeats the class path first.
     */
    private static final String JVMS = """
            for a in "$@"; do case $a in JDK_JAVA_OPTIONS=*) opts=${a#JDK_JAVA_OPTIONS=} ;; MPIRUN_FT_AOT_PROBE=*) probe=${a#*=} ;; esac; done
            [ -z "${probe:-}" ] || echo app.jar > "$probe"
            [ -z "${opts:-}" ] || echo "NOTE: Picked up JDK_JAVA_OPTIONS: $opts" >&2
            case ${opts:-} in *AOTCacheOutput=*)
              output=${opts##*AOTCacheOutput=}
              printf '\\xa2\\xab\\x0b\\xf0 rank 0, which loaded the most' > "${output/\\%p/pid4242}"
              printf '\\xa2\\xab\\x0b\\xf0 rank 1' > "${output/\\%p/pid4243}"
              printf 'torn' > "${output/\\%p/pid4244}"
              echo "Picked up JAVA_TOOL_OPTIONS: -Djava.class.path=app.jar ${opts/\\%p/pid4242} -XX:AOTMode=create" >&2 ;;
            esac
            echo "the program's own line" >&2
            """;

    @Test
    void theRanksStartFromTheAotCacheThatTheProgramsFirstFinishedRunsMade() throws IOException {
        assertEquals(0, run(job(JVMS)), err());
        assertEquals(Optional.empty(), jvmOptions(argv(1)), "the first run only asks");
        assertEquals("the program's own line\n", err());
        err.reset();
        assertEquals(0, run(job(JVMS)), err());
        assertTrue(jvmOptions(argv(2)).orElseThrow().contains("-XX:AOTCacheOutput="), "rank 0 said yes: the second run trains");
        assertEquals("the program's own line\n", err(), "the JVMs' notices caused by mpirun-ft's options are not the user's to read");
        Path caches = mine().resolve(".aot-cache");
        List<Path> files;
        try (var list = Files.list(caches)) {
            files = list.sorted().toList();
        }
        assertEquals(3, files.size(), "the cache, the torn rank cache and rank 0's answer: " + files);
        Path cache = files.stream().filter(f -> f.getFileName().toString().matches("[0-9a-f]{16}\\.aot")).findFirst().orElseThrow();
        assertTrue(Files.readString(cache, StandardCharsets.ISO_8859_1).endsWith("which loaded the most"), "the largest rank cache");
        assertTrue(files.stream().anyMatch(f -> f.getFileName().toString().endsWith(".pid4244.aot")), "the torn one is never adopted");

        err.reset();
        assertEquals(0, run(job(JVMS)), err());
        assertEquals(Optional.of("-XX:+IgnoreUnrecognizedVMOptions -Xlog:aot*=off,cds*=off -XX:AOTCache=" + cache), jvmOptions(argv(3)));
        assertEquals("the program's own line\n", err());

        err.reset();
        assertEquals(0, run(job(JVMS, "--aot-cache", "off")), err());
        assertEquals(Optional.empty(), jvmOptions(argv(4)));
        assertEquals(Optional.empty(), exported(argv(4), "MPIRUN_FT_AOT_PROBE"));

        err.reset();
        String[] own = job(JVMS);
        List<String> withOwn = new ArrayList<>(List.of(own));
        withOwn.addAll(withOwn.indexOf("java"), List.of("-x", "JDK_JAVA_OPTIONS=-Xmx1g"));
        assertEquals(0, run(withOwn.toArray(String[]::new)), err());
        assertEquals(Optional.of("-Xmx1g"), jvmOptions(argv(5)), "the user's own JVM options for the ranks win, alone");
        assertEquals("NOTE: Picked up JDK_JAVA_OPTIONS: -Xmx1g\nthe program's own line\n", err(), "and their note is theirs");
    }

    /**
     * A training rank JVM that cannot write its AOT cache (its disk is full) exits with status 1
     * after the program's end. The program finished: the job succeeded (scripts/chaos, seed 1,
     * job 4: an NPB job's relaunch verified, then failed with mpirun's 1 when its ranks' caches
     * filled the checkpoint directory), and the torn cache is not adopted.
     */
    @Test
    void aTrainingJvmThatCannotWriteItsCacheDoesNotFailAFinishedProgram() throws Exception {
        Path finished = dir.resolve("finished");
        String jvms = """
                for a in "$@"; do case $a in JDK_JAVA_OPTIONS=*) opts=${a#JDK_JAVA_OPTIONS=} ;; MPIRUN_FT_AOT_PROBE=*) probe=${a#*=} ;; esac; done
                [ -z "${probe:-}" ] || echo app.jar > "$probe"
                case ${opts:-} in *AOTCacheOutput=*)
                  while [ ! -f %s ]; do sleep 0.05; done
                  output=${opts##*AOTCacheOutput=}
                  printf '\\xa2\\xab\\x0b\\xf0 cut short' > "${output/\\%%p/pid4242}"
                  exit 1 ;;
                esac
                exit 0
                """.formatted(finished);
        assertEquals(0, run(job(jvms)), err());
        err.reset();
        CompletableFuture<Integer> status = runInBackground(job(jvms));
        daemon.awaitSubscriber(WAIT);
        org.mpirunft.launcher.FakeMpirunAccess.waitFor(dir.resolve("argv.2"), WAIT);
        daemon.push(new SchedulerUpdate.ProgramFinished(SchedulerUpdate.VERSION, JOB));
        Thread.sleep(300);
        Files.writeString(finished, "");
        assertEquals(0, status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err());
        assertTrue(jvmOptions(argv(2)).orElseThrow().contains("-XX:AOTCacheOutput="), "the second run trains");
        try (var list = Files.list(mine().resolve(".aot-cache"))) {
            assertTrue(list.noneMatch(f -> f.getFileName().toString().matches("[0-9a-f]{16}\\.aot")),
                    "no cache adopted from a launch whose JVMs did not all write theirs");
        }
    }

    /**
     * Warm spares are ranks of the program's world, which only the rank library hides: a program
     * mpirun-ft cannot tell uses it (a script, a C program) gets none, with one line saying so,
     * and its rank 0 is asked to note that it does. mpirun here plays a rank library program's
     * rank 0, which leaves the note.
     */
    @Test
    void aProgramNotKnownToUseTheRankLibraryGetsNoWarmSparesUntilItsRankZeroNotedThatItDoes() throws IOException {
        String rankZero = """
                for a in "$@"; do case $a in MPIRUN_FT_RANK_LIBRARY_NOTE=*) touch "${a#*=}" ;; esac; done
                exit 0
                """;
        List<String> script = List.of("./solver", "in.dat");
        assertEquals(0, run(jobOf(script, rankZero)), err());
        List<String> first = argv(1);
        assertFalse(first.contains(":"), "no warm spare app context: the world is -np 2: " + first);
        assertEquals(Optional.empty(), exported(first, "MPIRUN_FT_WARM_SPARES"));
        assertEquals(Optional.of("spare1"), exported(first, "MPIRUN_FT_SPARES"), "the spare stays, cold: a replacement is spawned on it");
        Path note = Path.of(exported(first, "MPIRUN_FT_RANK_LIBRARY_NOTE").orElseThrow());
        assertEquals(mine().resolve(".rank-library"), note.getParent());
        assertEquals("mpirun-ft WARNING: no warm spares: ./solver is not known to use the rank library; give --warm-spares on if it does\n",
                err(), "said once, in one line");

        err.reset();
        assertEquals(0, run(jobOf(script, rankZero)), err());
        List<String> second = argv(2);
        assertEquals(List.of(":", "--host", "spare1:1", "-np", "1"), second.subList(second.indexOf(":"), second.indexOf(":") + 5),
                "its rank 0 noted that it uses the rank library: warm spares from now on");
        assertEquals(Optional.of("1"), exported(second, "MPIRUN_FT_WARM_SPARES"));
        assertEquals(Optional.empty(), exported(second, "MPIRUN_FT_RANK_LIBRARY_NOTE"), "nothing more to ask");
        assertEquals("", err());

        List<String> c = List.of("./ring", "40");
        assertEquals(0, run(jobOf(c, "exit 0", "--warm-spares", "off")), err());
        assertFalse(argv(3).contains(":"));
        assertEquals(Optional.empty(), exported(argv(3), "MPIRUN_FT_RANK_LIBRARY_NOTE"), "off asks nothing");
        assertEquals("", err(), "and says nothing: the user chose");
        assertEquals(0, run(jobOf(c, "exit 0", "--warm-spares", "on")), err());
        assertTrue(argv(4).contains(":"), "on: the user says it uses the rank library");
        assertEquals("", err());
    }

    @Test
    void aBadWarmSparesValueIsAOneLineErrorNamingIt() throws IOException {
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--warm-spares", "always")));
        assertOneLineError("--warm-spares: must be 'auto', 'on' or 'off', got 'always'");
    }

    @Test
    void theProgramsOwnStatusPassesThrough() throws IOException {
        assertEquals(3, run(job("exit 3")));
        assertEquals(List.of(new ControlRequest.JobFinished(ControlRequest.VERSION, JOB, 3)),
                daemon.requests(ControlRequest.JobFinished.class));
    }

    @Test
    void aJobThatLostRanksAndGotNoDecisionFailsEvenWhenMpirunReturnsZero() throws IOException {
        // The scheduler never answers here: the job ends once its decision timeout has passed.
        int status = run(job("echo 'PRTE has lost communication with a remote daemon.' >&2; exit 0", "--decision-timeout", "1s"));
        assertEquals(ExitCode.RANKS_LOST.code(), status);
        assertTrue(err().contains("mpirun-ft: ranks lost and not recovered (job running, mpirun returned 0)"), err());
        assertTrue(err().contains("no decision from the scheduler within 1s"), err());
        assertEquals(1, daemon.requests(ControlRequest.RestartNeeded.class).size(), "the scheduler was asked to decide");
    }

    @Test
    void theProgramsEndArrivingJustAfterMpirunExitedEndsTheJobWithoutAskingForARestart() throws Exception {
        // After a recovered loss, rank 0 reports the end before it finalizes; the scheduler's
        // transition can come back after mpirun already exited 0.
        CompletableFuture<Integer> status = runInBackground(job("echo 'PRTE has lost communication with a remote daemon.' >&2; touch "
                + dir.resolve("exited") + "; exit 0"));
        daemon.awaitSubscriber(WAIT);
        org.mpirunft.launcher.FakeMpirunAccess.waitFor(dir.resolve("exited"), WAIT);
        Thread.sleep(300);
        daemon.push(new SchedulerUpdate.ProgramFinished(SchedulerUpdate.VERSION, JOB));
        assertEquals(0, status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err());
        assertEquals(List.of(), daemon.requests(ControlRequest.RestartNeeded.class), "no restart asked for a job that is done");
        assertEquals(List.of("launch", "exit"), eventTypes());
    }

    /** mpirun reports rank 1 lost on node2 and exits 1; run again, it exits 0. */
    private static final String RANK_ONE_LOST_THEN_DONE = """
            if [ $n -eq 1 ]; then
              echo 'prterun noticed that process rank 1 with PID 77 on node node2 exited on signal 9 (Killed).' >&2; exit 1
            fi
            exit 0""";

    /**
     * The scheduler decides a restart, then stops the job (the restart's new loss left no spare)
     * while mpirun-ft plans the relaunch: the stop is the newest decision, and nothing is launched
     * again (scripts/chaos seed 501 job 5: the relaunch went ahead, failed, and the job ended with 80).
     */
    @Test
    void aStopDecidedWhileTheRelaunchIsPlannedEndsTheJobWithoutLaunchingAgain() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean restartDecided = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.atomic.AtomicBoolean stopSent = new java.util.concurrent.atomic.AtomicBoolean();
        daemon.override(request -> {
            if (request instanceof ControlRequest.RestartNeeded) {
                daemon.push(new SchedulerUpdate.RestartStarted(SchedulerUpdate.VERSION, JOB, "1@node2", "runtime", Map.of(1, "node2"),
                        Map.of(1, "spare1"), List.of("node1", "spare1"), "mpirun ended early"));
                restartDecided.set(true);
            } else if (request instanceof ControlRequest.Status && restartDecided.get() && stopSent.compareAndSet(false, true)) {
                // Asked while the relaunch is planned: the stop comes now.
                daemon.push(new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, JOB, "no-spare", "no free spare for rank 0"));
                try {
                    Thread.sleep(500);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return null;
        });
        String scenario = RANK_ONE_LOST_THEN_DONE;
        CompletableFuture<Integer> status = runInBackground(job(scenario, "--decision-timeout", "1s"));
        daemon.awaitSubscriber(WAIT);
        assertEquals(ExitCode.NO_SPARE.code(), status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err());
        assertTrue(stopSent.get(), "the stop came while the relaunch was planned");
        assertFalse(Files.exists(dir.resolve("argv.2")), "nothing launched after the stop");
    }

    @Test
    void openMpisReportOfALostRankGoesToTheSchedulerWhoseRestartIsCarriedOut() throws Exception {
        daemon.override(request -> {
            if (request instanceof ControlRequest.RestartNeeded) {
                daemon.push(new SchedulerUpdate.RestartStarted(SchedulerUpdate.VERSION, JOB, "1@node2", "runtime", Map.of(1, "node2"),
                        Map.of(1, "spare1"), List.of("node1", "spare1"), "mpirun ended early"));
            }
            return null;
        });
        String scenario = RANK_ONE_LOST_THEN_DONE;
        // The scheduler answers only when asked: mpirun-ft asks once its grace (bounded by the decision timeout) has passed.
        CompletableFuture<Integer> status = runInBackground(job(scenario, "--decision-timeout", "1s"));
        daemon.awaitSubscriber(WAIT);
        assertEquals(0, status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err());
        assertEquals(List.of(new ControlRequest.FailureReported(ControlRequest.VERSION, JOB, "runtime", Map.of(1, "node2"), List.of(),
                "prterun noticed that process rank 1 with PID 77 on node node2 exited on signal 9 (Killed).")),
                daemon.requests(ControlRequest.FailureReported.class));
        List<String> second = argv(2);
        assertEquals("node1:1,spare1:1", second.get(second.indexOf("--host") + 1), "relaunched on the scheduler's plan");
        assertEquals(List.of(new ControlRequest.JobRelaunched(ControlRequest.VERSION, JOB, 2, List.of("node1", "spare1"))),
                daemon.requests(ControlRequest.JobRelaunched.class));
        assertEquals(List.of("launch", "failure", "decision", "fallback", "restart", "launch", "exit"), eventTypes());
    }

    @Test
    void checkpointLevelsReachTheRanksAndTheDefaultIsTheirOwn() throws IOException {
        assertEquals(0, run(job("exit 0", "--checkpoint-levels", "shared:8, partner")), err());
        assertEquals(Optional.of("partner,shared:8"), exported(argv(1), "MPIRUN_FT_CHECKPOINT_LEVELS"));
        Path config = Files.writeString(dir.resolve("levels.yaml"), "checkpoint-levels: partner,local\n");
        assertEquals(0, run(job("exit 0", "--config", config.toString())), err());
        assertEquals(Optional.of("partner,local"), exported(argv(2), "MPIRUN_FT_CHECKPOINT_LEVELS"), "the config file's key");
        assertEquals(0, run(job("exit 0")), err());
        assertEquals(Optional.empty(), exported(argv(3), "MPIRUN_FT_CHECKPOINT_LEVELS"), "local,shared: the rank library's default");
        assertEquals(Optional.empty(), exported(argv(3), "MPIRUN_FT_CHECKPOINT_FULL_EVERY"), "1: the rank library's default");
        assertEquals(0, run(job("exit 0", "--checkpoint-full-every", "8")), err());
        assertEquals(Optional.of("8"), exported(argv(4), "MPIRUN_FT_CHECKPOINT_FULL_EVERY"));
        assertEquals(0, run(job("exit 0", "--checkpoint-compression", "zstd")), err());
        assertEquals(Optional.of("zstd"), exported(argv(5), "MPIRUN_FT_CHECKPOINT_COMPRESSION"));
        assertEquals(Optional.empty(), exported(argv(4), "MPIRUN_FT_CHECKPOINT_COMPRESSION"), "none: the rank library's default");
        assertEquals(0, run(job("exit 0", "--checkpoint-levels", "xor", "--checkpoint-xor-set", "4")), err());
        assertEquals(Optional.of("xor"), exported(argv(6), "MPIRUN_FT_CHECKPOINT_LEVELS"));
        assertEquals(Optional.of("4"), exported(argv(6), "MPIRUN_FT_CHECKPOINT_XOR_SET"));
        assertEquals(Optional.empty(), exported(argv(5), "MPIRUN_FT_CHECKPOINT_XOR_SET"), "8: the rank library's default");
    }

    @Test
    void badOptionValuesAreOneLineUsageErrors() throws IOException {
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--checkpoint-interval", "soon")));
        assertOneLineError("--checkpoint-interval: must be 'auto', 'every N' (iterations) or a duration such as 30s, 10m, 1h, got 'soon'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--recovery", "later")));
        assertOneLineError("--recovery: must be 'pause', 'restart', 'full-restart' or 'transparent', got 'later'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--transparent", "--recovery", "restart")));
        assertOneLineError("--transparent: contradicts --recovery restart; give one of them");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--transparent", "--job-interface", "eth 0")));
        assertOneLineError("--job-interface: must be a network interface name (1-15 letters, digits, '_', '.', '-', not '.' or '..'), got 'eth 0'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--spares", "many")));
        assertOneLineError("--spares: must be a whole number, 0 or more, got 'many'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--checkpoint-levels", "partner,tape")));
        assertOneLineError("--checkpoint-levels: 'tape' is no storage level; levels are partner, xor, local, shared");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--checkpoint-full-every", "0")));
        assertOneLineError("--checkpoint-full-every: must be a whole number, 1 or more, got '0'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--checkpoint-xor-set", "2")));
        assertOneLineError("--checkpoint-xor-set: must be a whole number, 3 or more, got '2'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--checkpoint-levels", "partner,xor")));
        assertOneLineError("--checkpoint-levels: names both partner and xor in 'partner,xor'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--checkpoint-compression", "gzip")));
        assertOneLineError("--checkpoint-compression: must be 'none' or 'zstd', got 'gzip'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--checkpoint-levels", "shared:0")));
        assertOneLineError("--checkpoint-levels: 'shared:0' needs a whole number of epochs >= 1 after ':'");
        err.reset();

        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--job")));
        assertOneLineError("Missing argument for option: job");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run("--spares", "1", "-np", "2"));
        assertOneLineError("no program to run");
        assertFalse(Files.exists(dir.resolve("runs")), "mpirun never ran");
    }

    @Test
    void debugAddsTheStackTrace() throws IOException {
        assertEquals(ExitCode.USAGE.code(), run(job("exit 0", "--debug", "--recovery", "later")));
        assertTrue(err().lines().count() > 3 && err().contains("at org.mpirunft"), err());
    }

    @Test
    void anUnreachableDaemonHasItsOwnExitCode() throws IOException {
        assertEquals(ExitCode.DAEMON_UNREACHABLE.code(), run(job("exit 0", "--socket", dir.resolve("none.sock").toString())));
        assertOneLineError("no node daemon answers on " + dir.resolve("none.sock"));
    }

    @Test
    void anUnwritableCheckpointDirectoryHasItsOwnExitCode() throws IOException {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        assertEquals(ExitCode.CHECKPOINT_DIR.code(), run(job("exit 0", "--checkpoint-dir", file.resolve("ck").toString())), err());
        assertOneLineError("checkpoint directory " + file.resolve("ck").resolve(PrivateDirectories.currentUser()) + " is not writable");
    }

    @Test
    void tooFewSparesHasItsOwnExitCode() throws IOException {
        assertEquals(ExitCode.NO_SPARE.code(), run(job("exit 0", "--spares", "2")));
        assertOneLineError("no spare left for --spares 2: 2 needed, 1 [spare1] available");
        assertEquals(List.of(), daemon.requests(ControlRequest.RegisterJob.class), "nothing registered");
    }

    @Test
    void theConfigFileSetsDefaultsAndRefusesUnknownKeys() throws IOException {
        Path config = Files.writeString(dir.resolve("ft.yaml"), "spares: 0\nrecovery: restart\ncheckpoint-interval: 10m\naot-cache: off\n");
        assertEquals(0, run(job("exit 0", "--config", config.toString())), err());
        List<String> argv = argv(1);
        assertFalse(argv.contains("--with-ft"), "restart mode: a failure ends the job, which mpirun-ft relaunches");
        assertTrue(argv.contains("node1:1,node2:1"), argv.toString());
        assertEquals("10m", daemon.requests(ControlRequest.RegisterJob.class).getFirst().schedule(), "the one checkpoint knob");
        assertFalse(argv.stream().anyMatch(a -> a.startsWith("MPIRUN_FT_CHECKPOINT")), "nothing about checkpoints goes to the ranks: " + argv);
        assertEquals(Optional.empty(), exported(argv, "MPIRUN_FT_AOT_PROBE"), "aot-cache: off");

        Path bad = Files.writeString(dir.resolve("bad.yaml"), "spares: 1\nspare: 2\n");
        assertEquals(ExitCode.CONFIG.code(), run(job("exit 0", "--config", bad.toString())));
        assertOneLineError(bad + ": spare: unknown key (known here: agent, aot-cache, checkpoint-compression, checkpoint-dir, checkpoint-full-every, checkpoint-interval, checkpoint-levels, checkpoint-xor-set, decision-timeout, event-log, exit-timeout,");
        err.reset();
        Path list = Files.writeString(dir.resolve("list.yaml"), "recovery: [pause]\n");
        assertEquals(ExitCode.CONFIG.code(), run(job("exit 0", "--config", list.toString(), "--recovery", "pause")),
                "a malformed value is refused even where an option overrides it");
        assertOneLineError(list + ": recovery: must be a single value, got '[\"pause\"]'");
        err.reset();
        Path badValue = Files.writeString(dir.resolve("bad-value.yaml"), "max-restarts: many\n");
        assertEquals(ExitCode.CONFIG.code(), run(job("exit 0", "--config", badValue.toString())));
        assertOneLineError(badValue + ": max-restarts: must be a whole number");
    }

    @Test
    void theCommandLineWinsOverTheConfigFile() throws IOException {
        Path config = Files.writeString(dir.resolve("ft.yaml"), "recovery: restart\n");
        assertEquals(0, run(job("exit 0", "--config", config.toString(), "--recovery", "pause")), err());
        assertTrue(argv(1).contains("--with-ft"));
    }

    @Test
    void theSiteConfigGivesThePlumbingSoThatAJobNeedsOnlyTheUsersOptions() throws IOException {
        job("exit 0"); // writes the scenario's mpirun
        Path site = Files.writeString(dir.resolve("site.yaml"), String.join("\n", "socket: " + daemon.socket(),
                "mpirun: " + dir.resolve("mpirun"), "agent: /opt/site/ftd agent", "checkpoint-dir: " + dir.resolve("ck"),
                "recovery: restart", "exit-timeout: 2s", "stop-grace: 2s", ""));
        // No MPIRUN_FT_SOCKET, no plumbing option: what a user types on a deployed node.
        assertEquals(0, runWith(Map.of(), Optional.of(site), "--job", JOB, "-np", "2", "java", "-cp", app.toString(), "App"), err());
        List<String> argv = argv(1);
        assertTrue(argv.contains("plm_ssh_agent") && argv.contains("/opt/site/ftd agent"), "the site's launch agent: " + argv);
        assertFalse(argv.contains("--with-ft"), "the site's recovery: restart");
        assertTrue(Files.exists(mine().resolve(JOB).resolve("events.jsonl")), "the site's checkpoint directory");

        // The user's file wins over the site's, and an option over both.
        Path user = Files.writeString(dir.resolve("user.yaml"), "recovery: pause\nagent: /opt/user/ftd agent\n");
        assertEquals(0, runWith(Map.of(), Optional.of(site), "--job", JOB, "--config", user.toString(), "--agent", "/opt/option/ftd agent",
                "-np", "2", "java", "-cp", app.toString(), "App"), err());
        argv = argv(2);
        assertTrue(argv.contains("--with-ft"), "the user's recovery: pause");
        assertTrue(argv.contains("/opt/option/ftd agent"), "the option's agent: " + argv);

        // status talks to the daemon the site names, and reads the site's checkpoint directory.
        out.reset();
        assertEquals(0, runWith(Map.of(), Optional.of(site), "status"), err());
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("daemon head"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void insideASlurmAllocationTheJobRunsOnItsNodesWithTheLastOnesAsSpares() throws IOException {
        Path slurm = dir.resolve("slurm-env");
        String[] args = job("echo \"${MPIRUN_FT_SLURM_JOB:-none} ${SLURM_JOB_ID:-unset}\" > " + slurm + "; exit 0", "--warm-spares", "off");
        Map<String, String> env = Map.of("MPIRUN_FT_SOCKET", daemon.socket().toString(), "SLURM_JOB_ID", "42",
                "SLURM_JOB_NODELIST", "node[1-2],spare1", "SLURM_TASKS_PER_NODE", "1(x3)");
        assertEquals(0, runWith(env, Optional.empty(), args), err());
        List<String> argv = argv(1);
        assertTrue(argv.contains("node1:1,node2:1,spare1:1"), "the allocation's nodes, spare1 the spare: " + argv);
        // mpirun gets no SLURM_* variable (PRRTE would launch through one srun), but the launch
        // agent it runs learns the allocation, whose steps the node daemons then run in.
        assertEquals("42 unset", Files.readString(slurm).strip(), "mpirun's environment: MPIRUN_FT_SLURM_JOB, SLURM_JOB_ID");

        // An allocation that cannot hold the job is said in one line.
        Map<String, String> small = Map.of("MPIRUN_FT_SOCKET", daemon.socket().toString(), "SLURM_JOB_ID", "43",
                "SLURM_JOB_NODELIST", "node[1-2]");
        assertEquals(ExitCode.NO_SPARE.code(), runWith(small, Optional.empty(), job("exit 0", "--warm-spares", "off", "--spares", "1")),
                "spare1 is the daemons' spare, but not the allocation's");
        assertOneLineError("no spare left for --spares 1");
    }

    @Test
    void aSiteConfigThatIsNamedButMissingIsAOneLineError() {
        Path missing = dir.resolve("no-such-site.yaml");
        assertEquals(ExitCode.CONFIG.code(), runWith(Map.of(), CliContext.siteConfigOf(Map.of(CliContext.SITE_CONFIG_VARIABLE,
                missing.toString()), dir.resolve("unused.yaml")), "status"));
        assertOneLineError(missing.toString());
        assertEquals(Optional.empty(), CliContext.siteConfigOf(Map.of(), dir.resolve("absent.yaml")), "no standard file: no site config");
    }

    @Test
    void aStopFromTheSchedulerEndsTheJobWithItsReasonAndTheNoSpareCode() throws Exception {
        CompletableFuture<Integer> status = runInBackground(job("exec sleep 300"));
        daemon.awaitSubscriber(WAIT);
        daemon.push(new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, JOB, "no-spare", "no free spare for rank 1"));
        assertEquals(ExitCode.NO_SPARE.code(), status.get(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertOneLineError("job " + JOB + " stopped: no free spare for rank 1 (checkpoints kept; launch again with --job " + JOB);
        assertEquals(List.of(new ControlRequest.JobFinished(ControlRequest.VERSION, JOB, ExitCode.NO_SPARE.code())),
                daemon.requests(ControlRequest.JobFinished.class));
    }

    /**
     * A transparent job's restored processes are the daemons' children, not mpirun's: when the
     * job stops, the daemons are asked to kill what is left of it (scripts/chaos seed 711 job 16:
     * a restore that failed on the spare left the other nodes' restored trees running).
     */
    @Test
    void aStoppedTransparentJobHasTheDaemonsKillWhatIsLeftOfIt() throws Exception {
        CompletableFuture<Integer> status = runInBackground(job("exec sleep 300", "--transparent"));
        daemon.awaitSubscriber(WAIT);
        daemon.push(new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, JOB, "no-spare", "no free spare for rank 1"));
        assertEquals(ExitCode.NO_SPARE.code(), status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err());
        assertEquals(List.of(new ControlRequest.KillJob(ControlRequest.VERSION, JOB, List.of())), daemon.requests(ControlRequest.KillJob.class),
                "every node's daemon kills the job's processes");
    }

    @Test
    void aPauseIsFollowedFromTheSchedulersTransitionsToTheResume() throws Exception {
        CompletableFuture<Integer> status = runInBackground(job("exec sleep 300"));
        daemon.awaitSubscriber(WAIT);
        // A pause of the running job: mpirun started, so its launch is logged. (mpirun-ft follows
        // the scheduler from before the launch, and a decision that comes earlier is logged earlier.)
        org.mpirunft.launcher.FakeMpirunAccess.waitFor(dir.resolve("argv.1"), WAIT);
        int v = SchedulerUpdate.VERSION;
        daemon.push(new SchedulerUpdate.RecoveryStarted(v, JOB, "1@node2", "ulfm", Map.of(1, "node2"), Map.of(1, "spare1"), ""));
        daemon.push(new SchedulerUpdate.RecoveryCompleted(v, JOB, "1@node2", List.of("node1", "spare1"), 2, 20,
                new RankMessage.RecoverySplit(1, 2, 3, 4, 1, 1, 5, 15, List.of())));
        daemon.push(new SchedulerUpdate.ProgramFinished(v, JOB));
        assertEquals(0, status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err() + "the program finished: mpirun's exit is bounded");
        assertEquals(List.of("launch", "failure", "decision", "pause", "replacement", "resume", "exit"), eventTypes());
        JsonNode exit = events().getLast();
        assertEquals(1, exit.get("recoveries").asInt());
        assertTrue(exit.get("launcherCpuMs").asDouble() > 0, exit.toString());
    }

    @Test
    void restartModeStopsMpirunOnOpenMpisLossReportWithoutWaitingForTheDecision() throws Exception {
        // Without ULFM mpirun ends the job anyway: its stop need not wait for the report's way to
        // the scheduler and back. Here mpirun would run on, and the decision comes only once it is gone.
        String scenario = """
                if [ $n -eq 1 ]; then
                  trap 'touch %s/stopped; kill $!; exit 143' TERM
                  echo 'prterun noticed that process rank 1 with PID 77 on node node2 exited on signal 9 (Killed).' >&2
                  sleep 300 & wait
                fi
                exit 0""".formatted(dir);
        CompletableFuture<Integer> status = runInBackground(job(scenario, "--recovery", "restart"));
        daemon.awaitSubscriber(WAIT);
        org.mpirunft.launcher.FakeMpirunAccess.waitFor(dir.resolve("stopped"), WAIT);
        // The report goes out on its own thread, so it may reach the daemon after the stop.
        daemon.await(ControlRequest.FailureReported.class, r -> r.lostRanks().equals(Map.of(1, "node2")), WAIT);
        daemon.push(new SchedulerUpdate.RestartStarted(SchedulerUpdate.VERSION, JOB, "1@node2", "runtime", Map.of(1, "node2"),
                Map.of(1, "spare1"), List.of("node1", "spare1"), "mpirun lost rank 1"));
        assertEquals(0, status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err());
        List<String> second = argv(2);
        assertEquals("node1:1,spare1:1", second.get(second.indexOf("--host") + 1), "relaunched on the scheduler's plan");
        assertEquals(List.of(), daemon.requests(ControlRequest.RestartNeeded.class), "the decision on the report was awaited");
        assertEquals(List.of("node1", "spare1", "head"), daemon.requests(ControlRequest.KillJob.class).getFirst().nodes(),
                "node2, named lost by the decision, is not asked; the launcher's node is");
        assertEquals(List.of("launch", "failure", "decision", "restart", "launch", "exit"), eventTypes());
    }

    /**
     * An mpirun that mpirun-ft stopped reports the node daemons that go with it as lost: those
     * losses are mpirun-ft's own doing, not news for the scheduler, which would take them for a
     * second failure and plan again, or stop the job for want of spares (scripts/chaos seed 501
     * job 5: a transparent job's restart stopped for "no free spare" after its stopped mpirun,
     * whose output comes through named pipes, named the survivors' node daemons lost). Here the
     * lines come in one write with the loss that stops mpirun, and are read after the stop: a
     * stopped mpirun's own pipes are closed at its SIGTERM, so nothing it writes later arrives.
     */
    @Test
    void whatAStoppedMpirunNamesLostIsNotReportedAsALoss() throws Exception {
        String scenario = """
                if [ $n -eq 1 ]; then
                  trap 'kill $!; exit 143' TERM
                  printf '%s\\n' 'prterun noticed that process rank 1 with PID 77 on node node2 exited on signal 9 (Killed).' \\
                    'PRTE has lost communication with a remote daemon.' '' '  HNP daemon   : [prterun-head-1@0,0] on node head' \\
                    '  Remote daemon: [prterun-head-1@0,1] on node node1' >&2
                  sleep 300 & wait
                fi
                exit 0""";
        CompletableFuture<Integer> status = runInBackground(job(scenario, "--recovery", "restart"));
        daemon.awaitSubscriber(WAIT);
        daemon.await(ControlRequest.FailureReported.class, r -> r.lostRanks().equals(Map.of(1, "node2")), WAIT);
        daemon.push(new SchedulerUpdate.RestartStarted(SchedulerUpdate.VERSION, JOB, "1@node2", "runtime", Map.of(1, "node2"),
                Map.of(1, "spare1"), List.of("node1", "spare1"), "mpirun lost rank 1"));
        assertEquals(0, status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err());
        assertTrue(err().contains("on node node1"), "mpirun named node1's daemon lost: " + err());
        assertEquals(List.of(Map.of(1, "node2")), daemon.requests(ControlRequest.FailureReported.class).stream()
                .map(ControlRequest.FailureReported::lostRanks).toList(), "one report: rank 1's loss, not node1's daemon");
        assertEquals(List.of("launch", "failure", "decision", "restart", "launch", "exit"), eventTypes());
    }

    @Test
    void restartModeStopsAndRelaunchesTheWholeJobOnTheSchedulersPlan() throws Exception {
        String scenario = "if [ $n -eq 1 ]; then echo first; exec sleep 300; else echo second; exit 0; fi";
        CompletableFuture<Integer> status = runInBackground(job(scenario, "--recovery", "restart"));
        daemon.awaitSubscriber(WAIT);
        org.mpirunft.launcher.FakeMpirunAccess.waitFor(dir.resolve("argv.1"), WAIT);
        daemon.push(new SchedulerUpdate.RestartStarted(SchedulerUpdate.VERSION, JOB, "1@node2", "detector", Map.of(1, "node2"),
                Map.of(1, "spare1"), List.of("node1", "spare1"), "--recovery restart"));
        assertEquals(0, status.get(WAIT.toSeconds(), TimeUnit.SECONDS), err());
        assertEquals("first\nsecond\n", out.toString(StandardCharsets.UTF_8));
        List<String> second = argv(2);
        assertEquals("node1:1,spare1:1", second.get(second.indexOf("--host") + 1), "the failed node2 replaced by spare1");
        assertTrue(second.contains("MPIRUN_FT_JOB=" + JOB), "same job id: the ranks resume from its checkpoints");
        assertEquals(1, daemon.requests(ControlRequest.KillJob.class).size());
        assertEquals(List.of("launch", "failure", "decision", "restart", "launch", "exit"), eventTypes());
    }

    @Test
    void statusShowsNodesAndJobs() throws IOException {
        daemon.status(new ControlReply.StatusReport(ControlReply.VERSION, "head", "LAUNCHER", true, false, "node1", 4,
                List.of(FakeDaemon.member("node1", "COMPUTE", 2), FakeDaemon.member("spare1", "SPARE", 2)), List.of(),
                List.of(new ControlReply.JobStatus(JOB, "head", "RUNNING", "pause", "auto", 1, List.of("node1", "node1", "spare1"),
                        List.of(), 6, 6, "", 0, Map.of(), Map.of(), "", "", false, -1, "root", true),
                        new ControlReply.JobStatus("cring", "head", "RUNNING", "transparent", "10s", 1, List.of("node1", "spare1"),
                        List.of(), 3, 3, "", 0, Map.of(), Map.of(), "", "", false, -1, "root", true),
                        new ControlReply.JobStatus("bjob", "node1", "RUNNING", "pause", "auto", 1, List.of("node1"), List.of(), 2, 2, "", 0,
                        Map.of(), Map.of(), "", "", false, -1, "bob", true).withoutDetails()), "", 3, List.of("10.213.0.1:7800")));
        Path log = mine().resolve(JOB).resolve("events.jsonl");
        Files.createDirectories(log.getParent());
        Files.writeString(log, "{\"type\":\"resume\"}\n{\"type\":\"pause\"}\n{\"type\":\"restart\"}\n");
        assertEquals(0, run("status", "--checkpoint-dir", dir.resolve("ck").toString()), err());
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.startsWith("daemon head (launcher); leader node1; view 4 of 2 node(s)\n"), text);
        assertTrue(text.contains("spare1  spare    2      0       0.00"), text);
        assertTrue(text.contains(JOB + "  root  head      pause        6      2           3      running  node1: 0,1  spare1: 2"), text);
        assertTrue(text.contains("cring" + " ".repeat(JOB.length() - 3) + "root  head      transparent  3      -           2      running  node1: 0  spare1: 1"),
                "a transparent job's epochs as any job's: " + text);
        assertTrue(text.contains("bjob     bob   -         pause        -      -           -      running  -"),
                "another user's job: its name, owner, mode and state, as squeue shows it: " + text);
        out.reset();
        assertEquals(0, run("status", "--json"));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("{\"type\":\"status\""), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void checkpointAsksTheDaemonAndNamesAnUnknownJob() {
        assertEquals(0, run("checkpoint", JOB));
        assertEquals(List.of(new ControlRequest.CheckpointNow(ControlRequest.VERSION, JOB)),
                daemon.requests(ControlRequest.CheckpointNow.class));
        daemon.override(r -> r instanceof ControlRequest.CheckpointNow ? FakeDaemon.failed(ErrorCode.NOT_FOUND, "unknown job") : null);
        assertEquals(ExitCode.JOB_NOT_FOUND.code(), run("-v", "checkpoint", "nojob"));
        assertOneLineError("no job 'nojob' is known to the daemon");
    }

    @Test
    void helpListsTheSubcommandsAndExitCodes() {
        assertEquals(0, run("--help"));
        String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("status") && text.contains("checkpoint") && text.contains("80    ranks lost"), text);
        assertTrue(text.contains("  -np, --np N\n"), text);
        // The user's options first; what the site config sets, then help and logging, after them.
        assertTrue(text.indexOf("-np, --np N") < text.indexOf("--spares N") && text.indexOf("--config FILE") < text.indexOf("Site options")
                && text.indexOf("Site options") < text.indexOf("--socket PATH") && text.indexOf("--agent COMMAND") < text.indexOf("General options")
                && text.indexOf("General options") < text.indexOf("-h, --help"), text);
        out.reset();

        assertEquals(0, run("help", "status"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--json"), out.toString(StandardCharsets.UTF_8));
        assertEquals(ExitCode.USAGE.code(), run("status", "extra"));
        assertOneLineError("status takes no arguments, got 'extra'");
        err.reset();
        assertEquals(ExitCode.USAGE.code(), run("checkpoint"));
        assertOneLineError("checkpoint takes one JOB, got none");
    }

    @Test
    void aSucceededRunMarksItsAotRecordAndNothingElseIsWritten(@TempDir Path dir) {
        Path record = dir.resolve("key.aotconf.123");
        MpirunFtCli.markAotRecordGood(null);
        MpirunFtCli.markAotRecordGood("");
        assertFalse(Files.exists(Path.of(record + ".ok")));
        MpirunFtCli.markAotRecordGood(record.toString());
        assertTrue(Files.exists(Path.of(record + ".ok")), "bin/mpirun-ft builds a cache only from a marked record");
        MpirunFtCli.markAotRecordGood(record.resolveSibling("missing-dir/x").toString()); // no directory: no mark, no error
    }
}
