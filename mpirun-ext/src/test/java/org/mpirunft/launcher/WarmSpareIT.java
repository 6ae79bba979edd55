package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.SimulatedCluster;
import org.mpirunft.testkit.SimulatedCluster.NodeProcess;

/**
 * Warm spares, with the real daemons, 4 compute nodes and 2 spares: mpirun-ft launches one idle
 * rank on each spare with the job, and a node kill is repaired by the warm spare on the spare the
 * scheduler chose, without a new process. Two kills use both; the result is the failure-free one.
 */
class WarmSpareIT {
    private static final String[] HOSTS = {"--host", "node1:1,node2:1,node3:1,node4:1,spare1:1,spare2:1", "--spares", "2"};
    /**
     * PRRTE's data server (in mpirun) logs each publish and lookup at verbosity 1 to mpirun's
     * output ("data server: publishing data from ...", "data server: lookup data from ...";
     * checked with MPI_Publish_name and MPI_Lookup_name on this Open MPI).
     */
    private static final String[] DATA_SERVER_VERBOSE = {"--prtemca", "prte_data_server_verbose", "1"};
    private static final java.util.regex.Pattern DATA_SERVER_USE = java.util.regex.Pattern.compile(
            "data server: (publishing data|lookup data|looking for)");
    /** Clock ticks per second of /proc/PID/stat's CPU times (USER_HZ, 100 on Linux). */
    private static final double TICKS_PER_SECOND = 100;

    @TempDir
    Path dir;

    @Test
    void twoNodeKillsAreRepairedByTheWarmSparesLaunchedWithTheJob() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 2, HangAndCutIT.daemons())) {
            ClusterJob reference = ClusterJob.start(ClusterJob.Program.LONG, cluster, dir, "ref-" + cluster.name(), "pause", HOSTS);
            assertEquals(0, reference.exitCode(), reference.output());
            // Released at the end of a failure-free run, each spare reports its wait and its CPU meanwhile.
            List<java.util.regex.MatchResult> released = java.util.regex.Pattern.compile(
                    "warm spare \\d+: released; idle_s=([0-9.]+) idle_cpu_s=([0-9.]+)").matcher(reference.output()).results().toList();
            assertEquals(2, released.size(), "both spares were released: " + reference.output());
            // The report spans the spare's whole wait, its JVM's start-up tail included (class
            // loading and compilation: 1.4 s of CPU in 11.5 s on a loaded CI machine); a spare
            // that polled would use a core all along. The strict bound on an idle spare is taken
            // below, over a window well after start-up.
            for (java.util.regex.MatchResult spare : released) {
                System.out.println("WarmSpareIT: failure-free run, " + spare.group());
                assertTrue(Double.parseDouble(spare.group(2)) < 0.5 * Double.parseDouble(spare.group(1)), spare.group());
            }

            // RollbackRank runs from directories of classes, so its JVM cannot train an AOT cache
            // (the cache writing would fail and turn every rank's status into 1): rank 0 said no.
            Path caches = ClusterJob.userDirectory(ClusterJob.checkpointsOf(cluster.name())).resolve(RankAotCache.DIRECTORY);
            try (var files = Files.list(caches)) {
                assertEquals(List.of(), files.toList(), "no training, no cache for a class path with directories");
            }
            assertNoJvmNotice(reference);
            plainMpirunWithTheSameArgvEndsWithItsRanks(reference, "plain-" + cluster.name());

            ClusterJob job = ClusterJob.start(ClusterJob.Program.LONG, cluster, dir, "warm-" + cluster.name(), "pause",
                    java.util.stream.Stream.concat(java.util.Arrays.stream(HOSTS), java.util.Arrays.stream(DATA_SERVER_VERBOSE))
                            .toArray(String[]::new));
            job.await("^ITER 12$");
            Map<String, Long> spares = Map.of("spare1", rankProcessOn(cluster, "spare1"), "spare2", rankProcessOn(cluster, "spare2"));
            // Idle: the spares wait on their rank channel (a blocked socket read), not in an MPI call that polls.
            long idleFrom = System.nanoTime();
            Map<String, Long> cpuBefore = Map.of("spare1", cpuTicks(spares.get("spare1")), "spare2", cpuTicks(spares.get("spare2")));
            job.await("^ITER 30$");
            double idleSeconds = (System.nanoTime() - idleFrom) / 1e9;
            for (String spare : spares.keySet()) {
                double cpuSeconds = (cpuTicks(spares.get(spare)) - cpuBefore.get(spare)) / TICKS_PER_SECOND;
                System.out.printf("WarmSpareIT: %s's idle warm spare used %.2f s of CPU in %.1f s%n", spare, cpuSeconds, idleSeconds);
                assertTrue(cpuSeconds <= 0.02 * idleSeconds + 0.05, spare + "'s warm spare used " + cpuSeconds + " s of CPU in "
                        + idleSeconds + " s while idle");
            }

            cluster.kill("node3");
            JsonNode first = awaitReplacement(job, 2);
            String firstSpare = first.get("toNode").asText();
            job.await("^ITER 50$");
            cluster.kill("node4");
            JsonNode second = awaitReplacement(job, 3);
            String secondSpare = second.get("toNode").asText();

            assertEquals(0, job.exitCode(), job.output());
            assertEquals(reference.resultBits(), job.resultBits(), "the failure-free result");
            assertEquals(List.of("spare1", "spare2"), List.of(firstSpare, secondSpare).stream().sorted().toList(),
                    "one kill on each spare: " + job.eventTypes());
            assertEquals("warm", first.get("start").asText(), "the first replacement was a warm spare: " + first);
            assertEquals("warm", second.get("start").asText(), "the second replacement was a warm spare: " + second);
            Map<String, String[]> where = job.whereRanksRan();
            assertEquals(Long.toString(spares.get(firstSpare)), where.get("END2")[0],
                    "rank 2 ended in the warm spare process launched with the job on " + firstSpare);
            assertEquals(Long.toString(spares.get(secondSpare)), where.get("END3")[0],
                    "rank 3 ended in the warm spare process launched with the job on " + secondSpare);
            for (int rank : new int[] {0, 1}) {
                assertEquals(where.get("START" + rank)[0], where.get("END" + rank)[0], "rank " + rank + " keeps its process");
            }
            List<JsonNode> resumes = job.events().stream().filter(e -> e.get("type").asText().equals("resume")).toList();
            assertEquals(2, resumes.size(), "two resumes: " + job.eventTypes());
            for (JsonNode resume : resumes) {
                JsonNode split = resume.get("split");
                assertTrue(split != null && split.get("transferMillis").asDouble() > 0 && split.get("setupMillis").asDouble() >= 0,
                        "the event log has the recovery's split, the replacement's state read in it: " + resume);
            }
            JsonNode launch = job.events().stream().filter(e -> e.get("type").asText().equals("launch")).findFirst().orElseThrow();
            assertTrue(!launch.get("argv").toString().contains("JDK_JAVA_OPTIONS"), "no JVM options of mpirun-ft's: " + launch);
            assertNoJvmNotice(job);
            // Issue 48: the warm spares' rendezvous (their wait, their call, their join, their
            // release at the end) uses no PRRTE data server, so a node lost meanwhile cannot
            // leave it hanging there ("Node has gone down ... ds_lookup.c").
            List<String> dataServerUse = DATA_SERVER_USE.matcher(job.output()).results().map(java.util.regex.MatchResult::group).toList();
            assertEquals(List.of(), dataServerUse, "no publish or lookup in PRRTE's data server in a warm job with two recoveries");
            assertTrue(job.output().contains("data server"), "the data server's verbose output reaches the job's output (its purge lines)");
            FailureOrderIT.assertNoRestart(job);
            FailureOrderIT.assertNothingLeftOf(cluster, job);
        }
    }

    /**
     * Plain mpirun given the argv mpirun-ft gave it (as scripts/bench-overhead runs it), through
     * the same daemons: a job no scheduler knows, so no call can reach its warm spares. They learn
     * so from their daemon's welcome and wait for the job's end in MPI_Finalize, which the ranks'
     * finalize then completes. Without that, a spare waited on its rank channel for a call or a
     * job end that never came: the ranks' MPI_Finalize ran out its 30 s and mpirun never ended.
     */
    private static void plainMpirunWithTheSameArgvEndsWithItsRanks(ClusterJob launched, String job) throws Exception {
        JsonNode launch = launched.events().stream().filter(e -> e.get("type").asText().equals("launch")).findFirst().orElseThrow();
        List<String> argv = new java.util.ArrayList<>();
        launch.get("argv").forEach(a -> argv.add(a.asText().replace(launched.id, job)));
        // A failure-free run that the test does not act in the middle of: no pacing from the start.
        java.util.Optional<java.nio.file.Path> unpaced = org.mpirunft.testkit.Pacing.unpacedWhenIn(argv);
        if (unpaced.isPresent()) {
            java.nio.file.Files.createDirectories(unpaced.get().getParent());
            if (!java.nio.file.Files.exists(unpaced.get())) {
                java.nio.file.Files.createFile(unpaced.get());
            }
        }
        ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true);
        builder.environment().put("MPIRUN_FT_JOB", job);
        long start = System.nanoTime();
        Process mpirun = builder.start();
        ProcessOutput output = ProcessOutput.of(mpirun);
        // Unpaced, the job computes for about a second; its start and end take a few more.
        long boundSeconds = 90;
        if (!mpirun.waitFor(boundSeconds, java.util.concurrent.TimeUnit.SECONDS)) {
            mpirun.descendants().forEach(ProcessHandle::destroyForcibly);
            mpirun.destroyForcibly();
            throw new AssertionError("plain mpirun with mpirun-ft's argv did not end within " + boundSeconds + " s:\n" + output);
        }
        output.reader().join(5000);
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("WarmSpareIT: plain mpirun with mpirun-ft's argv and 2 warm spares ended in %.1f s%n", seconds);
        assertEquals(0, mpirun.exitValue(), output.toString());
        assertEquals(launched.resultBits(), ClusterJob.resultBitsOf(output.toString()), "plain mpirun's result is mpirun-ft's");
        assertEquals(2, java.util.regex.Pattern.compile("warm spare \\d+: job " + java.util.regex.Pattern.quote(job)
                + " is not scheduled").matcher(output.toString()).results().count(), "both spares knew no call could come: " + output);
        assertTrue(!output.toString().contains("MPI_Finalize did not return"), "no rank's finalize ran out its bound: " + output);
    }

    /** The JVMs' notices about the options mpirun-ft gave them are not in the job's output. */
    private static void assertNoJvmNotice(ClusterJob job) {
        for (String notice : List.of("Picked up", "[aot]", "AOTCache")) {
            assertTrue(!job.output().contains(notice), "'" + notice + "' in the job's output: " + job.output());
        }
    }

    /** The one rank process (RollbackRank's JVM) on {@code node}: the warm spare, before any failure. */
    private static long rankProcessOn(SimulatedCluster cluster, String node) {
        // Nodes share the host's process table: the full command line is readable here.
        List<NodeProcess> ranks = cluster.processesOn(node).stream().filter(p -> commandLine(p.pid()).contains("RollbackRank")).toList();
        assertEquals(1, ranks.size(), "one warm spare on " + node + ": " + cluster.processesOn(node));
        return ranks.getFirst().pid();
    }

    private static String commandLine(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
        } catch (java.io.IOException gone) {
            return "";
        }
    }

    /** utime + stime of a process, in clock ticks. */
    private static long cpuTicks(long pid) throws Exception {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
    }

    /** Waits for the event that says where {@code rank} went. */
    private static JsonNode awaitReplacement(ClusterJob job, int rank) throws Exception {
        JsonNode[] found = new JsonNode[1];
        try {
            FakeMpirun.waitUntil(60_000, "rank " + rank + "'s replacement", () -> {
                try {
                    found[0] = job.events().stream().filter(e -> e.get("type").asText().equals("replacement") && e.get("rank").asInt() == rank)
                            .findFirst().orElse(null);
                } catch (java.io.IOException e) {
                    found[0] = null;
                }
                return found[0] != null;
            });
        } catch (AssertionError e) {
            // The job goes on (a relaunch, say) and is cut off by the cluster's close: what it said so far is why.
            throw new AssertionError(e.getMessage() + "; the job's output:\n" + job.output() + "\nevents:\n" + job.eventsText(), e);
        }
        return found[0];
    }
}
