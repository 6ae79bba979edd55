package org.mpirunft.npb;

import java.util.ArrayList;
import java.util.List;
import org.mpirunft.bridge.storage.PartWrite;
import org.mpirunft.bridge.storage.PartWriteListener;

/**
 * The part writes a process's checkpoint stores made, as their listener hears them, each with
 * its writing thread's CPU and run-queue time over the write ({@link ThreadClocks}, read on that
 * thread right before and right after). What {@code npb-bench throughput} measures the ranks'
 * write rate from, and its write path alone. Thread-safe: every writer thread adds its own.
 */
public final class PartWriteTimes implements PartWriteListener {
    /**
     * One write, timed.
     *
     * @param thread what the writing thread's clocks advanced by over the write; -1 each if not
     *               known (no start was heard on that thread)
     */
    public record Timed(PartWrite write, ThreadClocks thread) {
    }

    /** The clocks at the start of the write under way on each thread. */
    private final ThreadLocal<ThreadClocks> started = new ThreadLocal<>();
    /** Guarded by itself. */
    private final List<Timed> writes = new ArrayList<>();

    @Override
    public void partWriteStarting(PartWrite.Op op, int rank, long epoch) {
        started.set(ThreadClocks.now());
    }

    @Override
    public void partWritten(PartWrite write) {
        ThreadClocks start = started.get();
        started.remove();
        Timed timed = new Timed(write, start == null ? new ThreadClocks(-1, -1) : start.toNow());
        synchronized (writes) {
            writes.add(timed);
        }
    }

    /** Every write heard so far, in the order they ended. */
    public List<Timed> writes() {
        synchronized (writes) {
            return List.copyOf(writes);
        }
    }
}
