package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * Incremental checkpoints on the simulated cluster: between full parts every 4th epoch, each
 * epoch's parts are deltas on the epoch before. One byte of a delta in the newest chain is
 * damaged on shared storage, then a node is killed: the relaunched job cannot load any epoch on
 * that link, falls back to the full epoch the chain starts from, says so, and ends with the
 * failure-free bits.
 */
class IncrementalCheckpointIT {
    /** One cluster for both tests, the killed node revived between them; their jobs have names of their own. */
    @RegisterExtension
    static final SharedCluster SHARED = new SharedCluster(() -> SimulatedCluster.upWithDaemons(4, 1, HangAndCutIT.daemons()));

    @TempDir
    Path dir;

    @Test
    void aChainWithADamagedDeltaFallsBackToItsFullEpoch() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        // Epoch 7 is at iteration 35: a long run, so that the kill lands mid-run.
        String reference = ClusterJob.referenceBits(ClusterJob.Program.LONG, cluster, dir);

        ClusterJob job = ClusterJob.start(ClusterJob.Program.LONG, cluster, dir, "delta-" + cluster.name(), "restart", "--checkpoint-levels", "shared",
                "--checkpoint-full-every", "4");
        String node = job.startNodeOf(2);
        // Epoch 5 (iteration 25) is full; 6 and 7 are deltas on 5 and 6.
        FakeMpirun.waitUntil(90_000, "epoch 7 committed", () -> job.committedEpoch() >= 7);
        Path shared = ClusterJob.jobDirectory(ClusterJob.checkpointsOf(cluster.name()), job.id);
        JsonNode six = new ObjectMapper().readTree(shared.resolve("epoch-0000000006/manifest.json").toFile());
        assertEquals(5, six.get("parts").get(0).get("base").asLong(), "epoch 6's parts are deltas on epoch 5: " + six);
        flipAByte(shared.resolve("epoch-0000000006/rank-000000.part"));
        long killedAt = System.nanoTime();
        cluster.kill(node);

        int code = job.exitCode();
        String output = job.output();
        assertEquals(0, code, output);
        assertEquals(reference, job.resultBits(), "the failure-free result");
        assertTrue(output.contains("cannot be loaded by every rank; falling back to epoch 5"), output);
        long relaunchedAt = job.firstLineAfter(killedAt, "^START rank=0 ").orElseThrow().nanos();
        assertEquals("ITER 25", job.firstLineAfter(relaunchedAt, "^ITER \\d+$").orElseThrow().text(),
                "the relaunch resumed at epoch 5's iteration");
    }

    /**
     * Compressed delta parts read back by a replacement: the warm spare that takes the killed
     * rank's place composes its part from shared storage (a full part and a delta, both
     * compressed), and the job ends with the bits of the reference, which ran uncompressed.
     */
    @Test
    void compressedIncrementalPartsRecoverAReplacementWithTheBitsOfAnUncompressedRun() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        String reference = ClusterJob.referenceBits(cluster, dir);

        ClusterJob job = ClusterJob.start(cluster, dir, "zstd-" + cluster.name(), "pause", "--checkpoint-compression", "zstd",
                "--checkpoint-full-every", "3");
        String node = job.startNodeOf(2);
        FakeMpirun.waitUntil(60_000, "epoch 2 committed", () -> job.committedEpoch() >= 2);
        Path shared = ClusterJob.jobDirectory(ClusterJob.checkpointsOf(cluster.name()), job.id);
        JsonNode part = new ObjectMapper().readTree(shared.resolve("epoch-0000000002/manifest.json").toFile()).get("parts").get(2);
        assertEquals("zstd", part.get("codec").asText(), part.toString());
        assertEquals(1, part.get("base").asLong(), "epoch 2's parts are deltas on epoch 1: " + part);
        cluster.kill(node);

        int code = job.exitCode();
        String output = job.output();
        assertEquals(0, code, output);
        assertEquals(reference, job.resultBits(), "compression on and off: the same bits");
        java.util.regex.Matcher recovered = java.util.regex.Pattern
                .compile("(?m)^\\[mpirun-ft\\] recovered replaced=\\[2\\] epoch=(\\d+) iteration=(\\d+)").matcher(output);
        assertTrue(recovered.find(), output);
        long epoch = Long.parseLong(recovered.group(1));
        assertTrue(epoch >= 2, "resumed at epoch " + epoch);
        assertEquals(5 * epoch, Long.parseLong(recovered.group(2)), "at the epoch's iteration");
        assertTrue(output.contains("rank 2: state transfer epoch=" + epoch + " "), output);
    }

    private static void flipAByte(Path part) throws Exception {
        try (FileChannel file = FileChannel.open(part, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.allocate(1);
            long at = file.size() - 100;
            file.read(b, at);
            b.put(0, (byte) (b.get(0) ^ 0x10)).position(0);
            file.write(b, at);
        }
    }

}
