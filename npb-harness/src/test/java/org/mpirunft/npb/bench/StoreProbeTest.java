package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StoreProbeTest {
    @TempDir
    Path dir;

    @Test
    void everyWriterWritesLocallyAndCopiesToSharedTimedAsARanksStoreIs() throws Exception {
        Path local = dir.resolve("local");
        Path shared = dir.resolve("shared");
        List<NpbOutput.PartWrite> writes = new StoreProbe(List.of(100_000L, 200_000L)).measure(local, shared);
        assertEquals(4, writes.size(), writes.toString());
        for (NpbOutput.PartWrite write : writes) {
            assertEquals(1, write.epoch());
            assertEquals(write.op().equals("write") ? local.toString() : shared.toString(), write.root(), write.toString());
            assertTrue(write.totalMs() >= write.dataMs() && write.cpuMs() >= 0, write.toString());
        }
        assertEquals(List.of(0, 0, 1, 1), writes.stream().mapToInt(NpbOutput.PartWrite::rank).sorted().boxed().toList());
        assertEquals(2, writes.stream().filter(w -> w.op().equals("copy")).count());
        assertTrue(ThroughputRates.epochRates(writes, local.toString()).size() >= 1, "rates come out of them as out of a run's");
        assertTrue(Files.notExists(local.resolve(StoreProbe.JOB)) && Files.notExists(shared.resolve(StoreProbe.JOB)), "deleted again");
    }
}
