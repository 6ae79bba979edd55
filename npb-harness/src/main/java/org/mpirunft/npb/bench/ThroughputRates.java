package org.mpirunft.npb.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.mpirunft.npb.bench.NpbOutput.PartWrite;

/**
 * The arithmetic of {@code npb-bench throughput}: checkpoint write rates from the ranks' own
 * part write lines, and their ratio to the disk's bandwidth. No I/O here.
 *
 * <p>Which rates are compared. The ranks of an epoch write at the same time (they take the
 * snapshot at one collective safe point) to one disk, so each rank's own rate (its bytes over
 * its write time) is roughly the disk's bandwidth shared N ways, plus whatever its writer loses
 * to CPU time (CRC, copies) on cores the kernels use too. The verdict therefore compares like
 * with like: the epoch's <em>aggregate</em> rate (all ranks' bytes of one level over the wall
 * time from the first write's start to the last one's end) with the disk's bandwidth under
 * <em>the same concurrency</em> (N writers, each writing a file of its rank's part size,
 * aggregate over the same span). The per-rank rate against one writer alone is reported too:
 * it shows what a single rank sees, but it is not the verdict, since N concurrent writers can
 * never each get a lone writer's bandwidth.
 *
 * <p>When both levels' directories are on one disk (the simulated cluster's are: the host's),
 * an epoch's local writes and its copies to shared storage overlap on that disk (a rank copies
 * while the others still write), so each level's rate alone counts the other level's bytes
 * against it. The verdict then takes the disk's point of view: the epoch's bytes of both levels
 * over the span from the first write's start to the last copy's end ({@link #BOTH}), against
 * the disk written with one file per rank in each of the two directories at once.
 */
public final class ThroughputRates {
    public static final String LOCAL = "local";
    public static final String SHARED = "shared";
    /** Both levels together, for directories on one disk. */
    public static final String BOTH = "local+shared";

    private ThroughputRates() {
    }

    /**
     * One level's writes of one epoch.
     *
     * @param writers       the ranks that wrote a part to this level
     * @param bytes         all their bytes
     * @param spanMs        first start to last durable end, over all of them
     * @param aggregateMBps {@code bytes} over {@code spanMs}, in MB (10^6 bytes) per second
     * @param rankMBps      the median of each rank's own bytes over its own total time
     * @param cpuShare      the writers' CPU time over their write times, summed: near 1 a writer was
     *                      busy on a core all along, far below it waited (for a core or the disk); NaN if not printed
     * @param runQueueShare the writers' time ready to run without a core over their write times, summed; what is
     *                      neither this nor {@code cpuShare} they were blocked (disk, fsync, throttling); NaN if not printed
     */
    public record EpochRate(long epoch, String level, int writers, long bytes, double spanMs, double aggregateMBps,
                            double rankMBps, double cpuShare, double runQueueShare) {
    }

    /** MB (10^6 bytes) per second for {@code bytes} in {@code millis}; NaN if no time passed. */
    public static double megabytesPerSecond(long bytes, double millis) {
        return millis > 0 ? bytes / 1e3 / millis : Double.NaN;
    }

    /**
     * The level a write went to: {@code local} if its store's root is the run's node-local
     * checkpoint directory (as the ranks see it, e.g. {@code /local/ckpt}), else {@code shared}.
     */
    public static String levelOf(PartWrite write, String localRoot) {
        return stripSlash(write.root()).equals(stripSlash(localRoot)) ? LOCAL : SHARED;
    }

    private static String stripSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

    /**
     * Per level and epoch (in that order), the aggregate and per-rank rates of the complete
     * epochs: those every rank wrote to the level. A rank prints its writes when the kernel ends,
     * and its last epoch's write may still be under way then (it commits at the end); such an
     * epoch is left out rather than counted with fewer ranks than the others.
     */
    public static List<EpochRate> epochRates(List<PartWrite> writes, String localRoot) {
        List<EpochRate> rates = new ArrayList<>();
        complete(writes, localRoot).forEach((level, epochs) -> epochs.forEach((epoch, group) -> rates.add(epochRate(epoch, level, group))));
        return rates;
    }

    /**
     * Per epoch, the rates of both levels' writes taken together ({@link #BOTH}): the epochs every
     * rank wrote to both levels.
     */
    public static List<EpochRate> bothLevelRates(List<PartWrite> writes, String localRoot) {
        Map<String, Map<Long, List<PartWrite>>> byLevel = complete(writes, localRoot);
        Map<Long, List<PartWrite>> local = byLevel.getOrDefault(LOCAL, Map.of());
        Map<Long, List<PartWrite>> shared = byLevel.getOrDefault(SHARED, Map.of());
        List<EpochRate> rates = new ArrayList<>();
        new java.util.TreeSet<>(local.keySet()).stream().filter(shared::containsKey).forEach(epoch -> {
            List<PartWrite> group = new ArrayList<>(local.get(epoch));
            group.addAll(shared.get(epoch));
            rates.add(epochRate(epoch, BOTH, group));
        });
        return rates;
    }

    /** Level, then epoch, to the writes of the epochs every rank wrote at that level. */
    static Map<String, Map<Long, List<PartWrite>>> complete(List<PartWrite> writes, String localRoot) {
        long ranks = writes.stream().mapToInt(PartWrite::rank).distinct().count();
        Map<String, Map<Long, List<PartWrite>>> byLevel = new TreeMap<>();
        for (PartWrite write : writes) {
            byLevel.computeIfAbsent(levelOf(write, localRoot), l -> new TreeMap<>())
                    .computeIfAbsent(write.epoch(), e -> new ArrayList<>()).add(write);
        }
        byLevel.values().forEach(epochs -> epochs.values()
                .removeIf(group -> group.stream().mapToInt(PartWrite::rank).distinct().count() < ranks));
        byLevel.values().removeIf(Map::isEmpty);
        return byLevel;
    }

    /** The rates of one level's writes of one epoch. */
    public static EpochRate epochRate(long epoch, String level, List<PartWrite> group) {
        long bytes = group.stream().mapToLong(PartWrite::bytes).sum();
        double start = group.stream().mapToDouble(PartWrite::startMicros).min().orElse(0);
        double end = group.stream().mapToDouble(PartWrite::endMicros).max().orElse(0);
        double spanMs = (end - start) / 1e3;
        Double rank = Medians.of(group.stream().map(w -> megabytesPerSecond(w.bytes(), w.totalMs())).toList());
        return new EpochRate(epoch, level, (int) group.stream().mapToInt(PartWrite::rank).distinct().count(), bytes, spanMs,
                megabytesPerSecond(bytes, spanMs), rank == null ? Double.NaN : rank, share(group, PartWrite::cpuMs),
                share(group, PartWrite::runQueueMs));
    }

    /** The sum of {@code part} over the sum of the write times; NaN if some write did not print it. */
    static double share(List<PartWrite> group, java.util.function.ToDoubleFunction<PartWrite> part) {
        if (group.stream().anyMatch(w -> part.applyAsDouble(w) < 0)) {
            return Double.NaN;
        }
        return ratio(group.stream().mapToDouble(part).sum(), group.stream().mapToDouble(PartWrite::totalMs).sum());
    }

    /**
     * The part sizes of one level's newest complete epoch, one per rank in rank order: what the disk
     * probe writes, one file per concurrent writer.
     */
    public static List<Long> newestPartSizes(List<PartWrite> writes, String localRoot, String level) {
        Map<Long, List<PartWrite>> epochs = complete(writes, localRoot).getOrDefault(level, Map.of());
        if (epochs.isEmpty()) {
            return List.of();
        }
        long newest = epochs.keySet().stream().mapToLong(Long::longValue).max().orElseThrow();
        return epochs.get(newest).stream().sorted(Comparator.comparingInt(PartWrite::rank)).map(PartWrite::bytes).toList();
    }

    /**
     * One level's result.
     *
     * @param epochs              epochs measured at this level
     * @param aggregateMBps       median over epochs of the aggregate checkpoint write rate
     * @param rankMBps            median over epochs of the median per-rank rate
     * @param diskConcurrentMBps  the disk probe's median aggregate bandwidth with one writer per rank
     * @param diskSingleMBps      the disk probe's median bandwidth with one writer
     * @param ratio               {@code aggregateMBps / diskConcurrentMBps}: the verdict's ratio
     * @param rankRatio           {@code rankMBps / diskSingleMBps}: for information
     * @param pass                {@code ratio >= target}
     */
    public record LevelResult(String level, int epochs, double aggregateMBps, double rankMBps, double diskConcurrentMBps,
                              double diskSingleMBps, double ratio, double rankRatio, double target, boolean pass) {
    }

    /** One level's result from its epochs' rates and the disk probe's medians. */
    public static LevelResult levelResult(String level, List<EpochRate> rates, double diskConcurrentMBps, double diskSingleMBps,
                                          double target) {
        List<EpochRate> atLevel = rates.stream().filter(r -> r.level().equals(level)).toList();
        double aggregate = orNaN(Medians.of(atLevel.stream().map(EpochRate::aggregateMBps).toList()));
        double rank = orNaN(Medians.of(atLevel.stream().map(EpochRate::rankMBps).toList()));
        double ratio = ratio(aggregate, diskConcurrentMBps);
        return new LevelResult(level, atLevel.size(), aggregate, rank, diskConcurrentMBps, diskSingleMBps, ratio,
                ratio(rank, diskSingleMBps), target, verdict(ratio, target));
    }

    /** {@code rate / bandwidth}; NaN unless both are positive numbers. */
    public static double ratio(double rate, double bandwidth) {
        return rate > 0 && bandwidth > 0 ? rate / bandwidth : Double.NaN;
    }

    /** Reached the target: a ratio that is a number and at least {@code target}. */
    public static boolean verdict(double ratio, double target) {
        return !Double.isNaN(ratio) && ratio >= target;
    }

    /**
     * The results the verdict is on: {@link #BOTH}'s alone if there is one (on one disk each
     * level's own rate counts the other level's concurrent writes against it), else every level's.
     */
    public static List<LevelResult> judged(List<LevelResult> levels) {
        List<LevelResult> both = levels.stream().filter(l -> l.level().equals(BOTH)).toList();
        return both.isEmpty() ? levels : both;
    }

    /** PASS only if there is a level and every level passes. */
    public static boolean allPass(List<LevelResult> levels) {
        return !levels.isEmpty() && levels.stream().allMatch(LevelResult::pass);
    }

    private static double orNaN(Double value) {
        return value == null ? Double.NaN : value;
    }
}
