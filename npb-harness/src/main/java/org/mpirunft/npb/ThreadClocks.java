package org.mpirunft.npb;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The calling thread's own clocks: its CPU time (user and system) and its time ready to run
 * without a core, Linux's {@code /proc/thread-self/schedstat} (second field). Read on a writer
 * thread before and after a part write, their difference says how much of the write's time the
 * thread computed, waited for a core, or (the rest) was blocked on the disk. Either is -1 where
 * the JVM or the kernel cannot tell.
 */
public record ThreadClocks(long cpuNanos, long runQueueNanos) {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final Path SCHEDSTAT = Path.of("/proc/thread-self/schedstat");

    /** The calling thread's clocks now. */
    public static ThreadClocks now() {
        return new ThreadClocks(THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1, readRunQueueNanos());
    }

    /** What the calling thread's clocks advanced by since {@code this} (read on the same thread). */
    public ThreadClocks toNow() {
        ThreadClocks now = now();
        return new ThreadClocks(since(cpuNanos, now.cpuNanos), since(runQueueNanos, now.runQueueNanos));
    }

    /** {@link #cpuNanos} in milliseconds, -1 if unknown. */
    public double cpuMillis() {
        return cpuNanos < 0 ? -1 : cpuNanos / 1e6;
    }

    /** {@link #runQueueNanos} in milliseconds, -1 if unknown. */
    public double runQueueMillis() {
        return runQueueNanos < 0 ? -1 : runQueueNanos / 1e6;
    }

    private static long readRunQueueNanos() {
        try {
            String[] fields = Files.readString(SCHEDSTAT).strip().split("\\s+");
            return Long.parseLong(fields[1]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** {@code after - before} of a counter that is -1 where unknown; -1 then. */
    private static long since(long before, long after) {
        return before < 0 || after < 0 ? -1 : after - before;
    }
}
