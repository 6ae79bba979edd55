package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * The world a program asked for (issue 48, item 7): a program that does not use the rank library
 * gets exactly {@code -np} processes in {@code MPI_COMM_WORLD} under mpirun-ft, as under mpirun,
 * though the job has a spare and mpirun-ft's defaults (pause mode, warm spares as the program
 * allows). Each program checks its world itself ({@code src/test/c/world-size.c}, {@link WorldSize}):
 * its size against {@code -np}, and an even count for one that pairs its ranks up. A warm spare
 * in the world makes it 5 and both fail. The spare stays the job's, cold, and mpirun-ft says once
 * why it launched no warm spare. {@link WarmSpareIT} shows a rank library program still gets them.
 */
class ProgramWorldIT {
    /** What plain {@code mpirun -np 4} gets on this cluster: the compute nodes, no spare. */
    private static final String COMPUTE = "node1:1,node2:1,node3:1,node4:1";
    private static final long BOUND_SECONDS = 180;
    /** One cluster for both tests: they inject no fault, and their jobs have names of their own. */
    @RegisterExtension
    static final SharedCluster SHARED = new SharedCluster(() -> SimulatedCluster.upWithDaemons(4, 1, HangAndCutIT.daemons()));

    @TempDir
    Path dir;

    @Test
    void aPlainCProgramGetsExactlyTheNpProcessesItAskedForAsUnderMpirun() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        Path program = Files.createDirectories(SimulatedCluster.repoRoot().resolve("mpirun-ext/target/program-world-it"))
                .resolve("world-size");
        cluster.exec("head", "mpicc", "-O2", "-o", program.toString(),
                SimulatedCluster.repoRoot().resolve("mpirun-ext/src/test/c/world-size.c").toString());
        // Both checks run and are reported, whatever the other's outcome.
        assertAll(Stream.of("4", "even").map(check -> () -> {
            List<String> command = List.of(program.toString(), check);
            assertWorldUnderMpirun(cluster, command);
            assertWorldUnderMpirunFt(cluster, "cworld-" + (check.equals("4") ? "np" : check) + "-" + cluster.name(), command,
                    program.toString());
        }));
    }

    @Test
    void aJavaProgramOnOpenMpisBindingsAloneGetsExactlyTheNpProcessesItAskedFor() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        // Its classes and mpi.jar, no rank library: a Java MPI program as Open MPI's users write them.
        String classPath = SimulatedCluster.repoRoot().resolve("mpirun-ext/target/test-classes") + File.pathSeparator
                + Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> entry.contains("/org/open-mpi/mpi/")).collect(Collectors.joining(File.pathSeparator));
        assertAll(Stream.of("4", "even").map(check -> () -> {
            List<String> command = List.of("java", MpiJobs.NATIVE_ACCESS, "-cp", classPath, WorldSize.class.getName(), check);
            assertWorldUnderMpirun(cluster, command);
            assertWorldUnderMpirunFt(cluster, "jworld-" + (check.equals("4") ? "np" : check) + "-" + cluster.name(), command,
                    "java " + WorldSize.class.getName());
        }));
    }

    /** Plain {@code mpirun -np 4 PROGRAM}: the reference the program must pass under mpirun-ft too. */
    private static void assertWorldUnderMpirun(SimulatedCluster cluster, List<String> command) throws Exception {
        Process mpirun = cluster.start("head", MpiJobs.mpirun(false, COMPUTE, 4, command));
        String output = new String(mpirun.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(mpirun.waitFor(BOUND_SECONDS, TimeUnit.SECONDS), "mpirun -np 4 " + command + " did not end: " + output);
        assertEquals(0, mpirun.exitValue(), "under mpirun -np 4: " + output);
        assertTrue(output.contains("WORLD OK size=4"), "under mpirun -np 4: " + output);
    }

    /** {@code mpirun-ft -np 4 --spares 1 PROGRAM} with the defaults: the same world, the spare kept cold, said once. */
    private void assertWorldUnderMpirunFt(SimulatedCluster cluster, String id, List<String> command, String name) throws Exception {
        ClusterJob job = ClusterJob.startProgram(cluster, dir, id, command);
        int code = job.exitCode();
        String output = job.output();
        assertTrue(output.contains("WORLD OK size=4"), "under mpirun-ft -np 4 --spares 1 the world must be -np, as under mpirun: " + output);
        assertEquals(0, code, "under mpirun-ft -np 4 --spares 1: " + output);
        String notice = "mpirun-ft WARNING: no warm spares: " + name + " is not known to use the rank library; give --warm-spares on if it does";
        assertEquals(1, output.lines().filter(notice::equals).count(), "said once, in one line: " + output);
        JsonNode launch = job.events().stream().filter(e -> e.get("type").asText().equals("launch")).findFirst().orElseThrow();
        assertEquals("[\"spare1\"]", launch.get("spares").toString(), "the spare is still the job's, for a replacement: " + launch);
        assertTrue(java.util.stream.StreamSupport.stream(launch.get("argv").spliterator(), false).noneMatch(w -> w.asText().equals(":")),
                "no second app context: " + launch);
    }
}
