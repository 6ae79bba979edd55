package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.storage.PartWrite;

class NpbListenerTest {
    private static final PartWrite WRITE = new PartWrite(PartWrite.Op.WRITE, 1, 3, Path.of("/local/ckpt"), 1000, 7, 10, 20);

    @Test
    void printsAStateTransferAndASparesReleaseAtOnce() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        NpbListener listener = new NpbListener(false, new PrintStream(printed, false, StandardCharsets.UTF_8));
        listener.stateTransferred(new RankListener.StateTransfer(2, 5, 2, 120_000_000L, 60_000_000L,
                RankListener.StateTransfer.Source.SHARED));
        listener.spareReleased(new RankListener.SpareRelease(5, 31_500_000_000L, 20_000_000L));
        assertEquals(List.of("[npb] state transfer rank=2 epoch=5 bytes=120000000 ms=60.0 from=shared",
                "[npb] spare released world_rank=5 idle_s=31.5 idle_cpu_s=0.020"),
                printed.toString(StandardCharsets.UTF_8).lines().toList(), "flushed as they happen, before the process may end");
    }

    @Test
    void keepsPartWritesForTheEndOnlyWhenAsked() {
        NpbListener quiet = new NpbListener(false, System.out);
        quiet.partWriteStarting(PartWrite.Op.WRITE, 1, 3);
        quiet.partWritten(WRITE);
        assertEquals(List.of(), quiet.partWrites());

        NpbListener timing = new NpbListener(true, System.out);
        timing.partWriteStarting(PartWrite.Op.WRITE, 1, 3);
        timing.partWritten(WRITE);
        List<PartWriteTimes.Timed> writes = timing.partWrites();
        assertEquals(1, writes.size());
        assertEquals(WRITE, writes.getFirst().write());
    }

    @Test
    void aPartWriteIsTimedOnItsWritersOwnClocks() throws Exception {
        PartWriteTimes times = new PartWriteTimes();
        Thread writer = Thread.ofPlatform().start(() -> {
            times.partWriteStarting(PartWrite.Op.COPY, 1, 3);
            // 20 ms of this thread's own CPU, however long a loaded machine makes it wait for a core.
            var threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long until = threads.getCurrentThreadCpuTime() + 20_000_000;
            while (threads.getCurrentThreadCpuTime() < until) {
                Thread.onSpinWait();
            }
            times.partWritten(WRITE);
        });
        writer.join();
        times.partWritten(WRITE);
        List<PartWriteTimes.Timed> writes = times.writes();
        ThreadClocks spent = writes.get(0).thread();
        assertTrue(spent.cpuNanos() >= 20_000_000, "the writer's 20 ms of spinning is its CPU time: " + spent);
        assertTrue(spent.runQueueNanos() >= 0 || !java.nio.file.Files.exists(Path.of("/proc/thread-self/schedstat")), spent.toString());
        assertEquals(new ThreadClocks(-1, -1), writes.get(1).thread(), "no start heard on this thread: not known");
        assertEquals(-1, writes.get(1).thread().cpuMillis());
    }
}
