package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.storage.PartWrite;
import org.mpirunft.npb.NpbReport;
import org.mpirunft.npb.PartWriteTimes;
import org.mpirunft.npb.ThreadClocks;

class NpbOutputTest {
    @Test
    void readsVerificationTimeCountersRecoveriesAndProgress() {
        NpbOutput output = Fixtures.pauseOutput();
        assertTrue(output.verified());
        assertEquals(7.82, output.npbSeconds().orElseThrow());
        NpbOutput.CheckpointCounters counters = output.checkpointCounters().orElseThrow();
        assertEquals(7, counters.taken());
        assertEquals(152, counters.lastBytes());
        assertEquals(0.183, counters.lastStallMs());
        assertEquals(16.211, counters.lastWriteMs());
        assertEquals(1, output.recoveries().size());
        assertEquals(0, output.headerIndex(1).orElseThrow());
        assertTrue(output.headerIndex(2).isEmpty());
        assertEquals(41, NpbOutput.iterationOf("[npb] iteration 41 of 64"));
        assertEquals(-1, NpbOutput.iterationOf("iteration 41"));
    }

    @Test
    void readsTheSnapshotAndPartTotalsOfTheCountersLine() {
        NpbOutput output = new NpbOutput(List.of(Fixtures.at(0, "[npb] checkpoints taken=4 last_bytes=1000 last_stall_ms=0.500"
                + " total_stall_ms=2.000 last_write_ms=4.000 last_epoch=4 last_part_bytes=200 total_snapshot_bytes=4000"
                + " total_part_bytes=1400")));
        NpbOutput.CheckpointCounters counters = output.checkpointCounters().orElseThrow();
        assertEquals(200, counters.lastPartBytes());
        assertEquals(4000, counters.totalSnapshotBytes());
        assertEquals(1400, counters.totalPartBytes());
        assertEquals(-1, Fixtures.pauseOutput().checkpointCounters().orElseThrow().totalPartBytes(), "an older line has no totals");
    }

    @Test
    void readsTheReplacedRanksStateTransferAsNpbReportsIt() {
        NpbOutput.StateTransfer transfer = Fixtures.pauseOutput().stateTransferOf(2, 0).orElseThrow();
        assertEquals(new NpbOutput.StateTransfer(2, 5, 120_000_000L, 60.0, "shared"), transfer);
        assertEquals(2000.0, transfer.megabytesPerSecond(), 1e-9);
        assertTrue(Fixtures.pauseOutput().stateTransferOf(3, 0).isEmpty());
    }

    @Test
    void readsTheStateTransferLineNpbPrintsOfWhatTheRankLibraryToldIt() {
        String line = NpbReport.stateTransferLine(new RankListener.StateTransfer(3, 8, 3, 4_000_000L, 12_345_678L,
                RankListener.StateTransfer.Source.PARTNER));
        assertEquals("[npb] state transfer rank=3 epoch=8 bytes=4000000 ms=12.3 from=partner", line);
        NpbOutput output = new NpbOutput(List.of(Fixtures.at(0, "[mpirun-ft] INFO: rank 3: pause order 1"), Fixtures.at(1, line)));
        assertEquals(new NpbOutput.StateTransfer(3, 8, 4_000_000L, 12.3, "partner"), output.stateTransferOf(3, 0).orElseThrow());
        assertTrue(output.stateTransferOf(3, 2).isEmpty(), "none at or after the index given");
    }

    @Test
    void readsTheLongestIdleWarmSpare() {
        List<TimedLine> lines = new ArrayList<>(Fixtures.pauseOutput().lines());
        assertTrue(new NpbOutput(lines).longestIdleSpare().isEmpty());
        lines.add(Fixtures.at(9100, "[mpirun-ft] INFO: warm spare 4 is rank 2 now; idle_s=3.0 idle_cpu_s=0.001"));
        lines.add(Fixtures.at(9200, NpbReport.spareReleasedLine(new RankListener.SpareRelease(5, 31_500_000_000L, 20_000_000L))));
        lines.add(Fixtures.at(9300, "[npb] spare released world_rank=6 idle_s=12.0 idle_cpu_s=0.500"));
        assertEquals("[npb] spare released world_rank=5 idle_s=31.5 idle_cpu_s=0.020", lines.get(lines.size() - 2).text());
        assertEquals(new NpbOutput.SpareIdle(5, 31.5, 0.02), new NpbOutput(lines).longestIdleSpare().orElseThrow(),
                "a spare called into the job is no released one");
    }

    @Test
    void readsEveryRanksPartWriteLinesAsNpbPrintsThem() {
        var timing = new PartWriteTimes.Timed(new PartWrite(PartWrite.Op.COPY, 2, 5, Path.of("/var/tmp/run dir/ckpt"),
                116_112_527L, 1_795_719_496_988_287L, 939_004_000L, 1_190_935_000L), new ThreadClocks(53_432_000L, 1_126_604_000L));
        String line = NpbReport.partWriteLine(timing);
        List<TimedLine> lines = new ArrayList<>(Fixtures.pauseOutput().lines());
        lines.add(Fixtures.at(9000, line));
        lines.add(Fixtures.at(9001, "[npb] part write rank=0 epoch=1 op=write bytes=10 start_us=7 data_ms=1.5 total_ms=2.0 root=/local/ckpt"));
        List<NpbOutput.PartWrite> writes = new NpbOutput(lines).partWrites();
        assertEquals(List.of(new NpbOutput.PartWrite(2, 5, "copy", 116_112_527L, 1_795_719_496_988_287L, 939.004, 1190.935, 53.432,
                1126.604, "/var/tmp/run dir/ckpt"), new NpbOutput.PartWrite(0, 1, "write", 10, 7, 1.5, 2.0, -1, -1, "/local/ckpt")),
                writes, "a line without CPU and run-queue times has -1 for them");
        assertEquals(1_795_719_496_988_287L + 1_190_935.0, writes.getFirst().endMicros(), 1e-3);
        assertTrue(NpbOutput.partWrite("[npb] checkpoints taken=3 last_bytes=1").isEmpty());
        assertTrue(Fixtures.pauseOutput().partWrites().isEmpty());
    }

    @Test
    void npbPrintsPartWritesOnlyWhenAsked() {
        assertTrue(NpbReport.writeTimesWanted("1"));
        assertFalse(NpbReport.writeTimesWanted(null));
        assertFalse(NpbReport.writeTimesWanted(""));
        assertFalse(NpbReport.writeTimesWanted("0"));
    }

    @Test
    void anUnsuccessfulOrMissingVerificationIsNotVerified() {
        List<TimedLine> lines = new ArrayList<>(Fixtures.pauseOutput().lines());
        lines.add(Fixtures.at(9999, " Verification    =             UNSUCCESSFUL"));
        assertFalse(new NpbOutput(lines).verified());
        assertFalse(new NpbOutput(List.of(Fixtures.at(0, "[npb] iteration 1 of 4"))).verified());
    }

    @Test
    void parsesTheRecoveryLineAsBlcrBridgePrintsIt() {
        RecoveryLine line = RecoveryLine.parse("[mpirun-ft] recovered replaced=[0,3] epoch=4 iteration=40 seen_at_ms=1763741000123"
                + " shrink_ms=10.9 spawn_ms=246.5 merge_ms=39.5 join_ms=1655.8 load_ms=666.2 total_ms=2621.1").orElseThrow();
        assertEquals(List.of(0, 3), line.replaced());
        assertEquals(1763741000123L, line.seenAtMillis());
        assertEquals(246.5 + 39.5 + 1655.8, line.replacementStartMs(), 1e-9);
        assertEquals(null, line.setupMs(), "a line from before the setup and transfer were reported");
        assertEquals(List.of(), RecoveryLine.parse("[mpirun-ft] recovered replaced=[] epoch=0 iteration=0 seen_at_ms=1 shrink_ms=1.0"
                + " spawn_ms=0.0 merge_ms=0.0 join_ms=0.0 load_ms=1.0 total_ms=2.0").orElseThrow().replaced());
        assertTrue(RecoveryLine.parse("[mpirun-ft] finished job=x").isEmpty());
    }
}
