package org.mpirunft.npb;

import java.util.Locale;
import org.mpirunft.bridge.CheckpointStats;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.storage.PartWrite;

/**
 * The standard NPB closing report, and the grep-able lines {@code npb} prints for {@code npb-bench}:
 * its checkpoint counters, and what the rank library told it ({@link NpbListener}).
 */
public final class NpbReport {
    private NpbReport() {
    }

    public static String format(KernelResult result) {
        StringBuilder out = new StringBuilder();
        if (!result.detail().isEmpty()) {
            out.append(result.detail().stripTrailing()).append('\n');
        }
        out.append(result.verified() ? " VERIFICATION SUCCESSFUL\n" : " VERIFICATION FAILED\n");
        out.append("\n ").append(result.kernel()).append(" Benchmark Completed.\n");
        line(out, "Class", result.cls().name());
        line(out, "Size", result.size());
        line(out, "Iterations", Long.toString(result.iterations()));
        line(out, "Time in seconds", String.format(Locale.ROOT, "%.2f", result.seconds()));
        line(out, "Total processes", Integer.toString(result.ranks()));
        line(out, "Mop/s total", String.format(Locale.ROOT, "%.2f", result.mops()));
        line(out, "Mop/s/process", String.format(Locale.ROOT, "%.2f", result.mops() / result.ranks()));
        line(out, "Operation type", result.operation());
        line(out, "Verification", result.verified() ? "SUCCESSFUL" : "UNSUCCESSFUL");
        return out.toString();
    }

    /**
     * This rank's checkpoint counters, one grep-able line for the benchmark harness
     * ({@code bench.NpbOutput} reads it): snapshots taken, size of the last one, the compute
     * stall it caused, its background write (local, then shared storage), the bytes that write
     * put on disk (fewer than the snapshot's for a delta or a compressed part), and the bytes sent
     * to the partner (fewer for an incremental copy).
     */
    public static String checkpointLine(CheckpointStats stats) {
        return String.format(Locale.ROOT,
                "[npb] checkpoints taken=%d last_bytes=%d last_stall_ms=%.3f total_stall_ms=%.3f last_write_ms=%.3f last_epoch=%d"
                        + " last_part_bytes=%d total_snapshot_bytes=%d total_part_bytes=%d total_partner_bytes=%d",
                stats.snapshots(), stats.lastSnapshotBytes(), stats.lastStallNanos() / 1e6, stats.totalStallNanos() / 1e6,
                stats.lastWriteNanos() / 1e6, stats.lastCommittedEpoch(), stats.lastPartBytes(),
                stats.totalSnapshotBytes(), stats.totalPartBytes(), stats.totalPartnerBytes());
    }

    /**
     * {@code NPB_WRITE_TIMES}: if set (to anything but empty or 0), every rank ends with one
     * {@link #partWriteLine} per part file its stores wrote or copied. {@code npb-bench throughput}
     * sets it; other runs print nothing more, and read no clock per write.
     */
    public static final String WRITE_TIMES_VARIABLE = "NPB_WRITE_TIMES";

    public static boolean writeTimesWanted(String value) {
        return value != null && !value.isBlank() && !value.strip().equals("0");
    }

    /**
     * One part write as the store timed it, with its writing thread's CPU and run-queue time, one
     * grep-able line ({@code bench.NpbOutput} reads it): the ranks' own measure of the checkpoint
     * write rate, per level (the store's root says which) and on the wall clock all ranks of a
     * machine share, so that an epoch's writes of all ranks can be put on one time line.
     */
    public static String partWriteLine(PartWriteTimes.Timed timed) {
        PartWrite write = timed.write();
        return String.format(Locale.ROOT, "[npb] part write rank=%d epoch=%d op=%s bytes=%d start_us=%d data_ms=%.3f total_ms=%.3f cpu_ms=%.3f"
                        + " runq_ms=%.3f root=%s",
                write.rank(), write.epoch(), write.op().label(), write.bytes(), write.startMicros(), write.dataNanos() / 1e6,
                write.totalNanos() / 1e6, timed.thread().cpuMillis(), timed.thread().runQueueMillis(),
                write.root());
    }

    /**
     * A rank's state for a rollback got from elsewhere than its memory (its part from disk, its
     * partner's copy, its XOR set's rebuild), one grep-able line ({@code bench.NpbOutput} reads it):
     * the replaced rank's state transfer, which the benchmark sets beside the storage path's bandwidth.
     */
    public static String stateTransferLine(RankListener.StateTransfer transfer) {
        return String.format(Locale.ROOT, "[npb] state transfer rank=%d epoch=%d bytes=%d ms=%.1f from=%s", transfer.rank(), transfer.epoch(),
                transfer.bytes(), transfer.nanos() / 1e6, transfer.from().label());
    }

    /**
     * A warm spare released at the job's end, one grep-able line ({@code bench.NpbOutput} reads it):
     * how long it waited and the CPU its process used meanwhile, which must be next to none.
     */
    public static String spareReleasedLine(RankListener.SpareRelease release) {
        return String.format(Locale.ROOT, "[npb] spare released world_rank=%d idle_s=%.1f idle_cpu_s=%.3f", release.worldRank(),
                release.idleNanos() / 1e9, release.cpuNanos() / 1e9);
    }

    private static void line(StringBuilder out, String label, String value) {
        out.append(String.format(Locale.ROOT, " %-15s = %24s%n", label, value));
    }
}
