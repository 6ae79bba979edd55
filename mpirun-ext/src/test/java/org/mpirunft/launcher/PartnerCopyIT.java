package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * The memory levels without shared storage. Partner: every epoch's parts live only in the ranks'
 * memory, each also in the memory of a rank on the next node. A node killed mid-run takes a rank
 * and the copy it held; its replacement on the spare gets its own part from its partner over MPI,
 * and the job ends with the bits of a failure-free run. No rank writes a part to any disk. XOR:
 * the same with parity over a set of nodes instead of copies.
 */
class PartnerCopyIT {
    private static final Pattern RECOVERED = Pattern.compile("(?m)^\\[mpirun-ft\\] recovered replaced=\\[(\\d+)\\] epoch=(\\d+) iteration=(\\d+)");
    private static final Pattern FROM_XOR = Pattern.compile("rank (\\d+): state transfer epoch=(\\d+) bytes=(\\d+) ms=\\S+ from=xor");
    private static final Pattern XOR_PARITY = Pattern.compile("rank (\\d+): XOR set (\\[[0-9, ]+\\]): parity=(\\d+) bytes per epoch");
    private static final Pattern FROM_PARTNER = Pattern.compile("rank (\\d+): state transfer epoch=(\\d+) bytes=(\\d+) ms=\\S+ from=partner");

    /** One cluster for the class, the killed nodes revived between tests; a job's name carries its test. */
    @RegisterExtension
    static final SharedCluster SHARED = new SharedCluster(() -> SimulatedCluster.upWithDaemons(4, 2, HangAndCutIT.daemons()));
    /** The first two tests' hosts: spare1 is their one spare, whatever the spares' loads. */
    private static final String[] ONE_SPARE = {"--host", "node1:1,node2:1,node3:1,node4:1,spare1:1"};

    @TempDir
    Path dir;

    @Test
    void aNodeKillWithoutSharedStorageIsRecoveredFromThePartnerCopy() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        // Node-local storage of each node's own, as on a real cluster (the default is the host's /tmp).
        Recovered recovered = rankTwosNodeKilled(cluster, "partner", FROM_PARTNER, "--checkpoint-levels", "partner",
                "--local-checkpoint-dir", "/local/ckpt", ONE_SPARE[0], ONE_SPARE[1]);
        for (String node : List.of("node1", "node2", "node3", "node4", "spare1")) {
            assertEquals(List.of(), epochDirectories(cluster.localStorage(node).resolve("ckpt").resolve(recovered.job().id)),
                    "nothing on " + node + "'s disk");
        }
    }

    /**
     * The XOR level without shared storage: four nodes form one set, each rank keeps parity of
     * about a third of a part instead of a whole copy. A node killed mid-run takes a rank and its
     * parity; the three survivors rebuild its part at the replacement from their own parts and
     * their parity, and the job ends with the bits of a failure-free run.
     */
    @Test
    void aNodeKillWithoutSharedStorageIsRecoveredByItsXorSet() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        Recovered recovered = rankTwosNodeKilled(cluster, "xor", FROM_XOR, "--checkpoint-levels", "xor", "--checkpoint-xor-set", "4",
                "--local-checkpoint-dir", "/local/ckpt", ONE_SPARE[0], ONE_SPARE[1]);
        Matcher parity = XOR_PARITY.matcher(recovered.output());
        assertTrue(parity.find(), "the parity's size: " + recovered.output());
        assertEquals("[0, 1, 2, 3]", parity.group(2), "one set of the four nodes");
        assertTrue(Long.parseLong(parity.group(3)) * 2 < recovered.partBytes(), "parity of about a third of a part, not a copy: "
                + parity.group(0) + " for a part of " + recovered.partBytes());
    }

    /** A job that ended with the failure-free bits after rank 2's node was killed, and what its ranks said. */
    private record Recovered(ClusterJob job, String output, long partBytes) {
    }

    /**
     * Starts a job with {@code options}, kills rank 2's node after iteration 12, and checks that
     * the job ended with the failure-free bits, resumed at the last committed epoch's safe point,
     * its replacement's whole part transferred as {@code transfer} says, with nothing on shared storage.
     */
    private Recovered rankTwosNodeKilled(SimulatedCluster cluster, String name, Pattern transferLine, String... options)
            throws Exception {
        String reference = ClusterJob.referenceBits(cluster, dir);
        ClusterJob job = ClusterJob.start(cluster, dir, name + "-" + cluster.name(), "pause", options);
        job.killStartNodeOf(cluster, 2, 12);
        String output = job.assertEndedWithBits(reference);

        Matcher recovered = RECOVERED.matcher(output);
        assertTrue(recovered.find(), "a recovery line: " + output);
        assertEquals("2", recovered.group(1), "rank 2 was replaced");
        long epoch = Long.parseLong(recovered.group(2));
        long iteration = Long.parseLong(recovered.group(3));
        // Checkpoints every 5 iterations, the node killed after iteration 12: the job resumed at
        // the last committed epoch's safe point, not from its start.
        assertTrue(epoch >= 2 && iteration >= 10 && iteration % 5 == 0, "resumed at epoch " + epoch + " iteration " + iteration);
        Matcher transfer = transferLine.matcher(output);
        assertTrue(transfer.find(), "the replacement's part came from the " + name + " level: " + output);
        assertEquals("2", transfer.group(1));
        assertEquals(epoch, Long.parseLong(transfer.group(2)), "of the epoch the job rolled back to");
        long partBytes = Long.parseLong(transfer.group(3));
        assertTrue(partBytes > 8 * 1000, "the whole part: " + transfer.group(0));
        job.assertReplacedOnlyRank(2, "spare1");
        assertEquals(List.of(), epochDirectories(ClusterJob.jobDirectory(ClusterJob.checkpointsOf(cluster.name()), job.id)), "nothing on shared storage");
        return new Recovered(job, output, partBytes);
    }

    /**
     * A rank and the rank that holds its copy, lost together (or two members of one XOR set):
     * the newest epoch, on the partner or XOR level only, cannot be loaded by every rank, and the
     * job falls back to the newest epoch on shared storage, says so, and ends with the failure-free
     * bits. When the two losses reach
     * the job apart (one node's while the other's replacement starts, on a loaded machine),
     * Open MPI's spawn can hang and the job falls back to a relaunch, as designed: that relaunch
     * must resume from the same epoch on shared storage.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "partner,shared:2|rank 2: no rank holds a partner copy of its part of epoch 3",
            "xor,shared:2|rank 2: cannot rebuild its part of epoch 3: ranks [2, 3] of its XOR set [0, 1, 2, 3] lost theirs too"})
    void bothRanksOfAPartnerPairLostTogetherFallBackToTheNextLevelThatHoldsAnEpoch(String levels, String cannot) throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        String reference = ClusterJob.referenceBits(cluster, dir);

        ClusterJob job = ClusterJob.start(cluster, dir, "pair-" + levels.substring(0, levels.indexOf(',')) + "-" + cluster.name(), "pause", "--spares", "2",
                "--checkpoint-levels", levels, "--checkpoint-xor-set", "4");
        // One rank per node, in rank order around the ring: rank 3 holds rank 2's copy.
        String rank2 = job.startNodeOf(2);
        String rank3 = job.startNodeOf(3);
        // Looked up ahead, so that the freeze below is immediate.
        List<String> frozen = new java.util.ArrayList<>(List.of("kill", "-STOP"));
        for (String node : List.of(rank2, rank3)) {
            cluster.processesOn(node).forEach(p -> frozen.add(Long.toString(p.pid())));
        }
        // Epoch 3 (iteration 15) went to the partner level only; epoch 2 also to shared storage.
        FakeMpirun.waitUntil(60_000, "epoch 3 committed", () -> job.committedEpoch() >= 3);
        // Both nodes frozen first, in one kill(1): no later epoch can commit without their ranks.
        // The kills take a while (signals, the node's storage wiped), and on a loaded machine
        // epoch 4, which goes to shared storage, once committed before they landed: the job
        // rightly resumed from it, and the fallback this test is about never happened.
        long killedAt = System.nanoTime();
        new ProcessBuilder(frozen).redirectErrorStream(true).start().waitFor();
        java.util.concurrent.CompletableFuture<Void> first = java.util.concurrent.CompletableFuture.runAsync(() -> cluster.kill(rank2));
        java.util.concurrent.CompletableFuture<Void> second = java.util.concurrent.CompletableFuture.runAsync(() -> cluster.kill(rank3));
        first.join();
        second.join();
        int code = job.exitCode();
        String output = job.output();
        assertEquals(0, code, output);
        assertEquals(reference, job.resultBits(), "the result must be bit-identical to the failure-free run's");
        if (job.eventTypes().contains("restart")) {
            assertTrue(job.eventTypes().contains("fallback"), "a relaunch only as the fallback of a repair: " + job.eventsText());
            // Not anchored: Open MPI's messages of the hung repair can end without a newline.
            long relaunchedAt = job.firstLineAfter(killedAt, "START rank=0 ").orElseThrow().nanos();
            assertEquals("ITER 10", job.firstLineAfter(relaunchedAt, "^ITER \\d+$").orElseThrow().text(),
                    "the relaunch resumed at epoch 2's iteration, from shared storage");
            return;
        }
        assertTrue(output.contains(cannot), output);
        assertTrue(output.contains("epochs [3] cannot be loaded by every rank; falling back to epoch 2"), output);
        // Both losses in one pause order: at once, or the second seen during the first's
        // recovery, which then extends it (on a loaded machine the kills can be seen apart, and
        // the last round then replaces only the rank not yet replaced).
        assertTrue(output.contains("lost {2=" + rank2 + ", 3=" + rank3 + "}"), "one pause order for ranks 2 and 3: " + output);
        Matcher recovered = Pattern.compile("(?m)^\\[mpirun-ft\\] recovered replaced=\\[(2,3|2|3)\\] epoch=2 iteration=10 ").matcher(output);
        assertTrue(recovered.find(), "ranks 2 and 3 replaced, resumed at epoch 2's iteration 10: " + output);
    }


    private static List<Path> epochDirectories(Path jobDirectory) throws IOException {
        if (!Files.isDirectory(jobDirectory)) {
            return List.of();
        }
        try (Stream<Path> children = Files.list(jobDirectory)) {
            return children.filter(p -> p.getFileName().toString().startsWith("epoch-")).toList();
        }
    }
}
