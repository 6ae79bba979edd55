package org.mpirunft.npb.bench;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.mpirunft.npb.PartWriteTimes;

/**
 * What the harness reads from a job's output (forwarded by mpirun and mpirun-ft): rank 0's NPB
 * report and progress (the verification, NPB's timed seconds, the checkpoint counters line,
 * {@code NpbReport.checkpointLine}), what the ranks' {@code npb} reported of the rank library's
 * events (state transfers, a warm spare's release, part writes), and the recovery lines.
 */
public final class NpbOutput {
    private static final Pattern VERIFICATION = Pattern.compile("^ Verification\\s+=\\s+(SUCCESSFUL|UNSUCCESSFUL)");
    private static final Pattern SECONDS = Pattern.compile("^ Time in seconds\\s+=\\s+([0-9.]+)");
    private static final Pattern HEADER = Pattern.compile("^ NAS Parallel Benchmarks \\(mpirun-ft Java\\)");
    private static final Pattern ITERATION = Pattern.compile("^\\[npb\\] iteration (\\d+) of (\\d+)");
    private static final Pattern CHECKPOINTS = Pattern.compile("^\\[npb\\] checkpoints taken=(\\d+) last_bytes=(\\d+)"
            + " last_stall_ms=([0-9.]+) total_stall_ms=([0-9.]+) last_write_ms=([0-9.]+) last_epoch=(\\d+)(?: last_part_bytes=(-?\\d+))?"
            + "(?: total_snapshot_bytes=(\\d+) total_part_bytes=(\\d+))?");

    private static final Pattern STATE_TRANSFER = Pattern.compile(
            "\\[npb\\] state transfer rank=(\\d+) epoch=(\\d+) bytes=(\\d+) ms=([0-9.]+) from=(\\w+)");

    /**
     * A rank's state got for a rollback from elsewhere than its memory (its part from storage, its
     * partner's copy, its XOR set's rebuild), as {@code NpbReport.stateTransferLine} prints what the
     * rank library told {@code npb}.
     */
    public record StateTransfer(int rank, long epoch, long bytes, double millis, String from) {
        /** MB (10^6 bytes) per second; null if no time was measured. */
        public Double megabytesPerSecond() {
            return megabytesPerSecond(bytes, millis);
        }

        /** {@code bytes} moved in {@code millis}, in MB (10^6 bytes) per second; null if {@code millis} is not positive. */
        public static Double megabytesPerSecond(long bytes, double millis) {
            return millis <= 0 ? null : bytes / 1e3 / millis;
        }
    }

    private static final Pattern SPARE_RELEASED = Pattern.compile(
            "\\[npb\\] spare released world_rank=(\\d+) idle_s=([0-9.]+) idle_cpu_s=([0-9.]+)");

    /**
     * A warm spare released at the end of the job, as {@code NpbReport.spareReleasedLine} prints what
     * the rank library told {@code npb}.
     */
    public record SpareIdle(int worldRank, double idleSeconds, double cpuSeconds) {
    }

    /** Rank 0's checkpoint counters at the end of the run. */
    /**
     * @param lastPartBytes      the last part's bytes on disk; -1 if not reported (logs from before it was)
     * @param totalSnapshotBytes every snapshot's bytes (what full parts would have written); -1 if not reported
     * @param totalPartBytes     every part's bytes on disk (fewer with deltas or compression); -1 if not reported
     */
    public record CheckpointCounters(long taken, long lastBytes, double lastStallMs, double totalStallMs, double lastWriteMs,
                                     long lastEpoch, long lastPartBytes, long totalSnapshotBytes, long totalPartBytes) {
    }

    private static final Pattern PART_WRITE = Pattern.compile("\\[npb\\] part write rank=(\\d+) epoch=(\\d+) op=(\\w+)"
            + " bytes=(\\d+) start_us=(\\d+) data_ms=([0-9.]+) total_ms=([0-9.]+)(?: cpu_ms=(-?[0-9.]+))?(?: runq_ms=(-?[0-9.]+))? root=(.*)$");

    /**
     * One part file a rank's store wrote ({@code op=write}) or copied to another level ({@code
     * op=copy}), as {@code NpbReport.partWriteLine} prints it with {@code NPB_WRITE_TIMES} set.
     *
     * @param startMicros wall clock at the start, microseconds since 1970
     * @param dataMs      until the bytes were handed to the file
     * @param totalMs     until the file was durable (forced, renamed, directory forced)
     * @param cpuMs       the writing thread's CPU time meanwhile; -1 if not printed
     * @param runQueueMs  the writing thread's time ready to run without a core meanwhile; -1 if not printed
     * @param root        the store's root directory: which level
     */
    public record PartWrite(int rank, long epoch, String op, long bytes, long startMicros, double dataMs, double totalMs,
                            double cpuMs, double runQueueMs, String root) {
        /** A write as a store's listener timed it in this process (the write path alone), as its line would say. */
        static PartWrite of(PartWriteTimes.Timed timed) {
            org.mpirunft.bridge.storage.PartWrite write = timed.write();
            return new PartWrite(write.rank(), write.epoch(), write.op().label(), write.bytes(), write.startMicros(),
                    write.dataNanos() / 1e6, write.totalNanos() / 1e6, timed.thread().cpuMillis(),
                    timed.thread().runQueueMillis(), write.root().toString());
        }

        public double endMicros() {
            return startMicros + totalMs * 1e3;
        }
    }

    /** Reads one part write line; empty if {@code line} is none. */
    public static Optional<PartWrite> partWrite(String line) {
        Matcher m = PART_WRITE.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new PartWrite(Integer.parseInt(m.group(1)), Long.parseLong(m.group(2)), m.group(3),
                Long.parseLong(m.group(4)), Long.parseLong(m.group(5)), Double.parseDouble(m.group(6)),
                Double.parseDouble(m.group(7)), optional(m.group(8)), optional(m.group(9)), m.group(10).strip()));
    }

    private static double optional(String number) {
        return number == null ? -1 : Double.parseDouble(number);
    }

    /** Every part write any rank printed, in output order. */
    public List<PartWrite> partWrites() {
        return lines.stream().map(l -> partWrite(l.text())).flatMap(Optional::stream).toList();
    }

    private final List<TimedLine> lines;

    public NpbOutput(List<TimedLine> lines) {
        this.lines = List.copyOf(lines);
    }

    public List<TimedLine> lines() {
        return lines;
    }

    /** True only if the report says SUCCESSFUL (and no report said otherwise). */
    public boolean verified() {
        List<String> verdicts = lines.stream().map(l -> VERIFICATION.matcher(l.text())).filter(Matcher::find)
                .map(m -> m.group(1)).toList();
        return !verdicts.isEmpty() && verdicts.stream().allMatch("SUCCESSFUL"::equals);
    }

    /** NPB's "Time in seconds" of the last report. */
    public Optional<Double> npbSeconds() {
        return last(SECONDS).map(m -> Double.valueOf(m.group(1)));
    }

    public Optional<CheckpointCounters> checkpointCounters() {
        return last(CHECKPOINTS).map(m -> new CheckpointCounters(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)),
                Double.parseDouble(m.group(3)), Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)),
                Long.parseLong(m.group(6)), m.group(7) == null ? -1 : Long.parseLong(m.group(7)),
                m.group(8) == null ? -1 : Long.parseLong(m.group(8)), m.group(9) == null ? -1 : Long.parseLong(m.group(9))));
    }

    /** Every in-place recovery rank 0 reported, in order. */
    public List<RecoveryLine> recoveries() {
        return lines.stream().map(l -> RecoveryLine.parse(l.text())).flatMap(Optional::stream).toList();
    }

    /** Index of the first line at or after {@code from} that reports a recovery. */
    public OptionalInt recoveryLineIndex(int from) {
        return firstIndex(from, l -> RecoveryLine.parse(l.text()).isPresent());
    }

    /** The first state transfer of {@code rank} reported at or after index {@code from}. */
    public Optional<StateTransfer> stateTransferOf(int rank, int from) {
        for (int i = Math.max(0, from); i < lines.size(); i++) {
            Matcher m = STATE_TRANSFER.matcher(lines.get(i).text());
            if (m.find() && Integer.parseInt(m.group(1)) == rank) {
                return Optional.of(new StateTransfer(rank, Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                        Double.parseDouble(m.group(4)), m.group(5)));
            }
        }
        return Optional.empty();
    }

    /** Of the warm spares released at the end of the job, the one that waited longest. */
    public Optional<SpareIdle> longestIdleSpare() {
        return lines.stream().map(l -> SPARE_RELEASED.matcher(l.text())).filter(Matcher::find)
                .map(m -> new SpareIdle(Integer.parseInt(m.group(1)), Double.parseDouble(m.group(2)), Double.parseDouble(m.group(3))))
                .max(java.util.Comparator.comparingDouble(SpareIdle::idleSeconds));
    }

    /** Index of the {@code n}-th (1-based) NPB banner: a new launch of the job prints one. */
    public OptionalInt headerIndex(int n) {
        int[] seen = IntStream.range(0, lines.size()).filter(i -> HEADER.matcher(lines.get(i).text()).find()).toArray();
        return seen.length >= n ? OptionalInt.of(seen[n - 1]) : OptionalInt.empty();
    }

    /** The first progress line at or after index {@code from}. */
    public Optional<TimedLine> firstIterationFrom(int from) {
        OptionalInt index = firstIndex(from, l -> ITERATION.matcher(l.text()).find());
        return index.isPresent() ? Optional.of(lines.get(index.getAsInt())) : Optional.empty();
    }

    /** The iteration a progress line reports done, or -1. */
    public static long iterationOf(String line) {
        Matcher m = ITERATION.matcher(line);
        return m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    /** The index of the first line whose text passes {@code test}. */
    public OptionalInt firstIndexOf(java.util.function.Predicate<String> test) {
        return firstIndex(0, line -> test.test(line.text()));
    }

    /** The highest iteration rank 0 reported done at or before {@code at}; -1 if none. */
    public long lastIterationAt(java.time.Instant at) {
        long last = -1;
        for (TimedLine line : lines) {
            if (!line.at().isAfter(at)) {
                last = Math.max(last, iterationOf(line.text()));
            }
        }
        return last;
    }

    private OptionalInt firstIndex(int from, java.util.function.Predicate<TimedLine> test) {
        return IntStream.range(Math.max(0, from), lines.size()).filter(i -> test.test(lines.get(i))).findFirst();
    }

    private Optional<Matcher> last(Pattern pattern) {
        Matcher found = null;
        for (TimedLine line : lines) {
            Matcher m = pattern.matcher(line.text());
            if (m.find()) {
                found = m;
            }
        }
        return Optional.ofNullable(found);
    }
}
