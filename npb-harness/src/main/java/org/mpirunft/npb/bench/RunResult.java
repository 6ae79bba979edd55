package org.mpirunft.npb.bench;

import java.util.List;

/**
 * What one run measured. Times are milliseconds unless named seconds; a value that the run
 * could not measure is null.
 *
 * @param error                 why the run does not count (not verified, a timeout, a missing
 *                              recovery), null if it counts
 * @param wallSeconds           mpirun-ft started to exited, as the harness saw it
 * @param npbSeconds            NPB's own timed region ("Time in seconds"), of the last launch
 * @param checkpointsTaken      by rank 0, from its counters line
 * @param checkpointsCommitted  {@code checkpoint} events of phase committed in the event log
 * @param partBytes             per rank, from the newest committed epoch's {@code manifest.json}
 * @param stallMs               rank 0's compute stall for its last checkpoint (the in-memory copy)
 * @param writeMs               rank 0's background write of its last part, local then shared
 * @param commitMs              median over the run's commits of the event log's durationMs
 *                              (at the commit: rank 0's stall plus its write)
 * @param failedNode            the node killed, for failure runs; the node a migration run moved a rank off
 * @param injectedAt            when it was killed (ISO-8601), for failure runs
 * @param spareIdleS            how long the warm spare that was idle longest waited, to its release
 *                              at the end of the job; null if no spare was released (none ran, or
 *                              every one was called)
 * @param spareIdleCpuS         that spare's whole-process CPU time while it waited
 * @param storage               the storage configuration's label ({@code ""} for the unnamed one; null in results
 *                              from before there were several)
 * @param snapshotBytes         rank 0's last snapshot, bytes in memory (the write speed's numerator)
 * @param totalSnapshotBytes    rank 0's snapshots over the run, bytes in memory
 * @param totalPartBytes        rank 0's parts over the run, bytes on disk (deltas and compression make them fewer)
 * @param daly                  the {@code daly} variant's failures and interval; null for the others
 * @param migration             the {@code migration} variant's move as the ranks timed it; null for the others
 * @param movedAt               when the harness asked for the move (ISO-8601), for migration runs
 * @param transparent           the {@code transparent} variant's checkpoints and restore; null for the others
 */
public record RunResult(String kernel, String cls, int nodes, String variant, int repeat, String job, String error,
                        boolean verified, int exitCode, double wallSeconds, Double npbSeconds, long iterations,
                        int checkpointEvery, Long checkpointsTaken, int checkpointsCommitted, List<Long> partBytes,
                        Double stallMs, Double writeMs, Double commitMs, String failedNode, String injectedAt,
                        Recoveries.Pause pause, Recoveries.Restart restart, String log, Double spareIdleS,
                        Double spareIdleCpuS, String storage, Long snapshotBytes, Long totalSnapshotBytes, Long totalPartBytes,
                        DalyRun daly, Recoveries.Migration migration, String movedAt, Recoveries.Transparent transparent) {

    /** A run of another variant than {@code transparent} (and results from before it). */
    public RunResult(String kernel, String cls, int nodes, String variant, int repeat, String job, String error, boolean verified,
                     int exitCode, double wallSeconds, Double npbSeconds, long iterations, int checkpointEvery, Long checkpointsTaken,
                     int checkpointsCommitted, List<Long> partBytes, Double stallMs, Double writeMs, Double commitMs, String failedNode,
                     String injectedAt, Recoveries.Pause pause, Recoveries.Restart restart, String log, Double spareIdleS,
                     Double spareIdleCpuS, String storage, Long snapshotBytes, Long totalSnapshotBytes, Long totalPartBytes, DalyRun daly,
                     Recoveries.Migration migration, String movedAt) {
        this(kernel, cls, nodes, variant, repeat, job, error, verified, exitCode, wallSeconds, npbSeconds, iterations, checkpointEvery,
                checkpointsTaken, checkpointsCommitted, partBytes, stallMs, writeMs, commitMs, failedNode, injectedAt, pause, restart, log,
                spareIdleS, spareIdleCpuS, storage, snapshotBytes, totalSnapshotBytes, totalPartBytes, daly, migration, movedAt, null);
    }

    /** A run without a migration (and results from before migrations). */
    public RunResult(String kernel, String cls, int nodes, String variant, int repeat, String job, String error, boolean verified,
                     int exitCode, double wallSeconds, Double npbSeconds, long iterations, int checkpointEvery, Long checkpointsTaken,
                     int checkpointsCommitted, List<Long> partBytes, Double stallMs, Double writeMs, Double commitMs, String failedNode,
                     String injectedAt, Recoveries.Pause pause, Recoveries.Restart restart, String log, Double spareIdleS,
                     Double spareIdleCpuS, String storage, Long snapshotBytes, Long totalSnapshotBytes, Long totalPartBytes, DalyRun daly) {
        this(kernel, cls, nodes, variant, repeat, job, error, verified, exitCode, wallSeconds, npbSeconds, iterations, checkpointEvery,
                checkpointsTaken, checkpointsCommitted, partBytes, stallMs, writeMs, commitMs, failedNode, injectedAt, pause, restart, log,
                spareIdleS, spareIdleCpuS, storage, snapshotBytes, totalSnapshotBytes, totalPartBytes, daly, null, null);
    }

    /** This run with its log path replaced, as a merge into another directory needs. */
    public RunResult withLog(String newLog) {
        return new RunResult(kernel, cls, nodes, variant, repeat, job, error, verified, exitCode, wallSeconds, npbSeconds, iterations,
                checkpointEvery, checkpointsTaken, checkpointsCommitted, partBytes, stallMs, writeMs, commitMs, failedNode, injectedAt,
                pause, restart, newLog, spareIdleS, spareIdleCpuS, storage, snapshotBytes, totalSnapshotBytes, totalPartBytes, daly,
                migration, movedAt, transparent);
    }

    /** The storage label, {@code ""} for the unnamed configuration (and for results from before labels). */
    public String storageLabel() {
        return storage == null ? "" : storage;
    }

    /** Rank 0's part bytes on disk over its snapshot bytes, over the whole run (computed); null if not reported. */
    public Double compressionRatio() {
        return totalSnapshotBytes == null || totalPartBytes == null || totalSnapshotBytes <= 0 || totalPartBytes < 0 ? null
                : (double) totalPartBytes / totalSnapshotBytes;
    }

    /** Rank 0's last snapshot's bytes over its write's time, MB (10^6 bytes) per second (computed); null if either is missing. */
    public Double writeMBps() {
        return snapshotBytes == null || writeMs == null ? null : NpbOutput.StateTransfer.megabytesPerSecond(snapshotBytes, writeMs);
    }

    public boolean counts() {
        return error == null;
    }

    /** Mean checkpoint size per rank in MB (10^6 bytes, as the paper's Table 1), or null. */
    public Double partMegabytes() {
        return partBytes == null || partBytes.isEmpty() ? null
                : partBytes.stream().mapToLong(Long::longValue).average().orElseThrow() / 1e6;
    }
}
