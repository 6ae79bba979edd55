package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpirunft.bridge.storage.CheckpointStore;
import org.mpirunft.bridge.storage.EpochManifest;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.OutputWatcher;
import org.mpirunft.testkit.SimulatedCluster;
import org.mpirunft.testkit.SimulatedCluster.NodeProcess;

/**
 * One {@code bin/npb} run under mpirun on a simulated cluster's head node, for tests.
 * Checkpoints go to the cluster's shared and node-local storage; spares are {@code spare1..}.
 */
public final class NpbJob {
    /** Every compute node and spare of a cluster of {@code compute} + {@code spares}, one slot each. */
    public static String hosts(int compute, int spares) {
        List<String> hosts = new ArrayList<>();
        for (int i = 1; i <= compute; i++) {
            hosts.add("node" + i + ":1");
        }
        for (int i = 1; i <= spares; i++) {
            hosts.add("spare" + i + ":1");
        }
        return String.join(",", hosts);
    }

    private static final Pattern VERIFIED = Pattern.compile("^ Verification\\s+=\\s+(SUCCESSFUL|UNSUCCESSFUL)");
    private static final Pattern RECOVERED = Pattern.compile("^\\[mpirun-ft\\] recovered replaced=\\[([0-9,]*)\\] epoch=(\\d+) iteration=(\\d+)");

    private final String label;
    private final Process process;
    private final OutputWatcher output;
    /** The job's checkpoints on the shared storage, as the host sees it. */
    private final CheckpointStore shared;

    private NpbJob(String label, Process process, CheckpointStore shared) {
        this.label = label;
        this.process = process;
        this.output = OutputWatcher.watch(process.getInputStream(), label);
        this.shared = shared;
    }

    /**
     * Starts {@code npb kernel cls} on {@code ranks} ranks over {@code hosts}; {@code settings}
     * are blcr-bridge settings such as {@code MPIRUN_FT_CHECKPOINT_EVERY=5}.
     */
    public static NpbJob start(SimulatedCluster cluster, String kernel, NpbClass cls, int ranks, String hosts,
                               List<String> settings) {
        return start(cluster, kernel, cls, ranks, hosts, settings, List.of());
    }

    /** As {@link #start(SimulatedCluster, String, NpbClass, int, String, List)}, with {@code npb}'s options after the class. */
    public static NpbJob start(SimulatedCluster cluster, String kernel, NpbClass cls, int ranks, String hosts,
                               List<String> settings, List<String> options) {
        String label = kernel + "." + cls + "." + ranks;
        List<String> program = new ArrayList<>();
        String job = label + "-" + System.nanoTime() % 100000;
        List<String> env = new ArrayList<>(List.of("MPIRUN_FT_JOB=" + job,
                "MPIRUN_FT_SHARED_DIR=/shared/ckpt", "MPIRUN_FT_LOCAL_DIR=/local/ckpt"));
        env.addAll(settings);
        for (String setting : env) {
            program.add("-x");
            program.add(setting);
        }
        program.add(SimulatedCluster.repoRoot().resolve("npb-harness/bin/npb").toString());
        program.add(kernel);
        program.add(cls.name());
        program.addAll(options);
        return new NpbJob(label, cluster.start("head", MpiJobs.mpirun(true, hosts, ranks, program)),
                new CheckpointStore(cluster.stateDirectory().resolve("shared/ckpt"), job));
    }

    public void awaitIteration(long iteration, Duration timeout) throws InterruptedException {
        assertTrue(output.await(Pattern.compile("^\\[npb\\] iteration " + iteration + " of"), timeout).isPresent(),
                label + " never reached iteration " + iteration + "; output:\n" + output.text());
    }

    /**
     * Waits until epoch {@code epoch} (or a later one) is committed on the shared storage: a
     * failure after that must roll back to it or later. A kill right after an iteration can land
     * before that iteration's checkpoint is whole, and then the job rightly rolls back further.
     */
    public void awaitCommitted(long epoch, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (shared.latestCommitted().map(EpochManifest::epoch).orElse(0L) < epoch) {
            assertTrue(System.nanoTime() < deadline, label + " did not commit epoch " + epoch + " within " + timeout + "; output:\n"
                    + output.text());
            Thread.sleep(20);
        }
    }

    /** Waits for the run to end and asserts it exited 0 with VERIFICATION SUCCESSFUL. */
    public void assertVerified(Duration timeout) throws InterruptedException {
        assertTrue(process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS), label + " did not finish in " + timeout
                + "; output:\n" + output.text());
        Matcher verification = output.await(VERIFIED, Duration.ofSeconds(5))
                .orElseThrow(() -> new AssertionError(label + " printed no verification; output:\n" + output.text()));
        assertEquals("SUCCESSFUL", verification.group(1), label + " must verify; output:\n" + output.text());
        assertEquals(0, process.exitValue(), label + " exit status; output:\n" + output.text());
    }

    /** The recovery lines rank 0 printed: replaced ranks, epoch, iteration. */
    public List<Matcher> recoveries() {
        return output.all(RECOVERED);
    }

    public String output() {
        return output.text();
    }

    /** SIGKILLs the rank process (a JVM) on {@code node}, leaving the node and its Open MPI daemon up. */
    public static long killRankOn(SimulatedCluster cluster, String node) throws Exception {
        NodeProcess rank = cluster.processesOn(node).stream().filter(p -> p.command().equals("java")).findFirst()
                .orElseThrow(() -> new AssertionError("no rank on " + node + ": " + cluster.processesOn(node)));
        assertEquals(0, new ProcessBuilder("kill", "-9", Long.toString(rank.pid())).start().waitFor());
        return rank.pid();
    }
}
