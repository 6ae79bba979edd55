package org.mpirunft.npb.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * What every npb-bench command that runs jobs takes the same way: the bound on a run, the rank
 * JVMs' heap and AOT cache, the builds it runs, and the simulated cluster's name. A mixin, so
 * that the options and their checks are written once.
 */
final class RunOptions {
    @Option(names = "--run-timeout", paramLabel = "DURATION", description = "bound on one run (default: 30m)")
    String runTimeout = "30m";

    @Option(names = "--rank-heap", paramLabel = "SIZE",
            description = "each rank JVM's -Xmx: 4g, 3500m (default: 3/4 of the machine's memory over nodes and spares)")
    String rankHeap;

    @Option(names = "--aot-cache", paramLabel = "on|off",
            description = "mpirun-ft's --aot-cache: rank JVMs start from an AOT cache of NPB, trained by each kernel's first run (default: on)")
    String aotCache = "on";

    @Option(names = "--launcher", paramLabel = "TARBALL|DIR", description = "mpirun-ft distribution (default: mpirun-ext/target/mpirun-ft-dist.tar.gz)")
    Path launcher;

    @Option(names = "--daemons", paramLabel = "DIR", description = "ftd distribution (default: runtime-daemon/target/ftd)")
    Path daemons;

    @Option(names = "--cluster", paramLabel = "NAME", description = "simulated cluster name (default: the command's name and a number)")
    String cluster;

    java.time.Duration runTimeout() {
        return NpbBench.duration("--run-timeout", runTimeout);
    }

    /** The rank heap in MiB: as given, else 3/4 of the machine's memory over {@code nodes} and {@code spares}. */
    long rankHeapMb(int nodes, int spares) {
        return rankHeap != null ? NpbBench.megabytes("--rank-heap", rankHeap)
                : BenchSettings.defaultRankHeapMb(machineMemory(), nodes, spares);
    }

    boolean aotCache() {
        return NpbBench.onOff("--aot-cache", aotCache);
    }

    Path launcher(Path repo) {
        return launcher != null ? launcher : repo.resolve("mpirun-ext/target/mpirun-ft-dist.tar.gz");
    }

    Path daemons(Path repo) {
        return daemons != null ? daemons : repo.resolve("runtime-daemon/target/ftd");
    }

    String cluster(String prefix) {
        return cluster != null ? cluster : prefix + ProcessHandle.current().pid() % 1000;
    }

    private static long machineMemory() {
        return ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getTotalMemorySize();
    }
}
