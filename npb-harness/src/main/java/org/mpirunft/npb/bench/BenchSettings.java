package org.mpirunft.npb.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.mpirunft.npb.NpbClass;

/**
 * A bench run's resolved, validated settings.
 *
 * @param checkpointEvery periodic interval in iterations; 0 for the default {@code max(1, N/8)}
 * @param failAt          the failure comes after this fraction of the iterations (and after a commit)
 * @param failRank        the rank whose node is killed
 * @param paceMillis      {@code NPB_PACE_MS}: sleep per iteration on every rank, for class S
 * @param paceRun         or: pace each kernel so that its iterations sleep this long in all
 * @param launcher        mpirun-ft's distribution tarball (or an unpacked {@code mpirun-ft} directory)
 * @param daemons         ftd's distribution directory (bin/ftd, lib/)
 * @param rankHeapMb      each rank JVM's maximum heap ({@code -Xmx}), in MiB
 * @param aotCache        mpirun-ft's {@code --aot-cache}: rank JVMs start from an AOT cache of NPB, which the first run trains
 * @param storage         the storage configurations compared, validated: each checkpointing run is made once per
 *                        configuration; one unnamed configuration when the invocation names none
 * @param seed            the daly variant's failure schedule: repeat {@code R} draws from {@code new Random(seed + R - 1)}
 * @param kernelRepeat    {@code npb --repeat}: each job goes through its class's iterations this many times (IS and MG), so
 *                        that a short class runs long enough for several checkpoint intervals and failures
 * @param standIn         the class that runs in place of a larger one that does not fit this machine ({@link Fit}); null for none
 */
public record BenchSettings(List<String> kernels, List<NpbClass> classes, List<Integer> nodeCounts, int spares, int repeats,
                            List<Variant> variants, int checkpointEvery, double failAt, int failRank, Duration mtbf,
                            long paceMillis, Duration paceRun, Duration runTimeout, long rankHeapMb, boolean aotCache, List<StorageConfig> storage, long seed, int kernelRepeat, NpbClass standIn, Path outDirectory, Path readme, Path repo, Path launcher,
                            Path daemons, String clusterName, String command) {
    public BenchSettings {
        if (kernels.isEmpty() || classes.isEmpty() || nodeCounts.isEmpty() || variants.isEmpty()) {
            throw new BenchException.Usage("kernels, classes, nodes and variants must each name at least one");
        }
        for (int nodes : nodeCounts) {
            if (nodes < 1 || nodes > 64) {
                throw new BenchException.Usage("--nodes must be from 1 to 64, got " + nodes);
            }
            if (nodes < 2 && variants.contains(Variant.DALY)) {
                // Rank 0 is never killed (it times NPB), so a failure needs a second rank.
                throw new BenchException.Usage("the daly variant needs --nodes 2 or more, got " + nodes);
            }
            if (failRank >= nodes) {
                throw new BenchException.Usage("--fail-rank " + failRank + " does not exist on " + nodes + " nodes");
            }
        }
        if (spares < 0 || spares > 8) {
            throw new BenchException.Usage("--spares must be from 0 to 8, got " + spares);
        }
        if (spares == 0 && variants.stream().anyMatch(Variant::injectsFailure)) {
            throw new BenchException.Usage("the pause, restart and daly variants need --spares 1 or more");
        }
        if (variants.contains(Variant.DALY) && !variants.contains(Variant.BASELINE)) {
            // Its efficiency is the same invocation's baseline time over its own.
            throw new BenchException.Usage("the daly variant's efficiency needs the baseline variant too: --variants baseline,daly");
        }
        if (storage.isEmpty()) {
            throw new BenchException.Usage("at least one storage configuration is needed");
        }
        if (repeats < 1) {
            throw new BenchException.Usage("--repeats must be >= 1, got " + repeats);
        }
        if (checkpointEvery < 0) {
            throw new BenchException.Usage("--checkpoint-every must be >= 0 (0: the default), got " + checkpointEvery);
        }
        if (!(failAt > 0 && failAt < 1)) {
            throw new BenchException.Usage("--fail-at must be a fraction between 0 and 1, got " + failAt);
        }
        if (failRank < 0) {
            throw new BenchException.Usage("--fail-rank must be >= 0, got " + failRank);
        }
        if (mtbf.isZero() || mtbf.isNegative()) {
            throw new BenchException.Usage("--mtbf must be > 0, got " + mtbf);
        }
        if (paceMillis < 0) {
            throw new BenchException.Usage("--pace-ms must be >= 0, got " + paceMillis);
        }
        if (paceRun.isNegative()) {
            throw new BenchException.Usage("--pace-run must be >= 0, got " + paceRun);
        }
        if (paceMillis > 0 && !paceRun.isZero()) {
            throw new BenchException.Usage("give --pace-ms or --pace-run, not both");
        }
        if (runTimeout.isZero() || runTimeout.isNegative()) {
            throw new BenchException.Usage("--run-timeout must be > 0, got " + runTimeout);
        }
        if (rankHeapMb < MIN_RANK_HEAP_MB) {
            throw new BenchException.Usage("--rank-heap must be at least " + MIN_RANK_HEAP_MB + "m, got " + rankHeapMb + "m");
        }
        for (String kernel : kernels) {
            String refused = org.mpirunft.npb.Kernels.byName(kernel).refusesRepeats(kernelRepeat);
            if (refused != null) {
                throw new BenchException.Usage("--kernel-repeat: " + refused);
            }
        }
        if (standIn != null && classes.stream().noneMatch(c -> c.compareTo(standIn) > 0)) {
            throw new BenchException.Usage("--stand-in " + standIn + " must be a smaller class than one of --classes " + classes);
        }
        kernels = List.copyOf(kernels);
        classes = List.copyOf(classes);
        nodeCounts = List.copyOf(nodeCounts);
        variants = List.copyOf(variants);
        storage = List.copyOf(storage);
    }

    static final long MIN_RANK_HEAP_MB = 64;

    /**
     * The default rank heap: three quarters of the machine's memory shared by every node's rank,
     * spares included. The JVM's own default (a quarter of the memory each) lets the ranks of
     * one machine together ask for more than it has; the kernel's OOM killer then ends a rank.
     */
    static long defaultRankHeapMb(long machineBytes, int maxNodes, int spares) {
        return Math.max(MIN_RANK_HEAP_MB, machineBytes * 3 / 4 / (maxNodes + spares) / (1024 * 1024));
    }

    /** The pace of a kernel with {@code iterations} iterations, in ms per iteration. */
    public long paceMillis(long iterations) {
        return paceRun.isZero() ? paceMillis : Math.ceilDiv(paceRun.toMillis(), Math.max(1, iterations));
    }

    /** What the report states about how the numbers were made. */
    public Map<String, Object> describe() {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("kernels", kernels);
        map.put("classes", classes.stream().map(Enum::name).toList());
        map.put("nodes", nodeCounts);
        map.put("spares", spares);
        map.put("repeats", repeats);
        map.put("variants", variants.stream().map(Variant::label).toList());
        map.put("checkpointEvery", checkpointEvery == 0 ? "max(1, iterations/8)" : Integer.toString(checkpointEvery));
        map.put("failAt", failAt);
        map.put("failRank", failRank);
        map.put("mtbfSeconds", mtbf.toSeconds());
        map.put("paceMs", paceMillis);
        map.put("paceRunSeconds", paceRun.toMillis() / 1e3);
        map.put("runTimeoutSeconds", runTimeout.toSeconds());
        map.put("rankHeapMb", rankHeapMb);
        Map<String, String> configs = new LinkedHashMap<>();
        storage.forEach(c -> configs.put(c.display(), String.join(" ", c.options())));
        map.put("storage", configs);
        map.put("seed", seed);
        map.put("kernelRepeat", kernelRepeat);
        map.put("standIn", standIn == null ? "none" : standIn.name());
        map.put("cores", Runtime.getRuntime().availableProcessors());
        return map;
    }
}
