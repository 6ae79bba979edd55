package org.mpirunft.npb;

import java.util.Locale;
import org.mpirunft.bridge.internal.CheckpointStats;

/** The standard NPB closing report, plus one grep-able verification line. */
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
     * stall it caused, its background write (local, then shared storage), and the bytes that write
     * put on disk (fewer than the snapshot's for a delta or a compressed part).
     */
    public static String checkpointLine(CheckpointStats stats) {
        return String.format(Locale.ROOT,
                "[npb] checkpoints taken=%d last_bytes=%d last_stall_ms=%.3f total_stall_ms=%.3f last_write_ms=%.3f last_epoch=%d"
                        + " last_part_bytes=%d total_snapshot_bytes=%d total_part_bytes=%d",
                stats.snapshots(), stats.lastSnapshotBytes(), stats.lastStallNanos() / 1e6, stats.totalStallNanos() / 1e6,
                stats.lastWriteNanos() / 1e6, stats.lastCommittedEpoch(), stats.lastPartBytes(),
                stats.totalSnapshotBytes(), stats.totalPartBytes());
    }

    private static void line(StringBuilder out, String label, String value) {
        out.append(String.format(Locale.ROOT, " %-15s = %24s%n", label, value));
    }
}
