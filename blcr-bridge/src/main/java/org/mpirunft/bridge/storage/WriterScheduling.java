package org.mpirunft.bridge.storage;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.logging.Logger;

/**
 * Puts a checkpoint writer thread in Linux's {@code SCHED_FIFO} class at the lowest real-time
 * priority, so that it gets a core as soon as its I/O lets it go on.
 *
 * <p>Why: a writer needs little CPU (the copy into the page cache, the CRC) but needs it often,
 * between its writes and after each fsync. In the normal class it shares its process's share of
 * the cores with the rank's compute thread, and on nodes whose cores all compute it waited for a
 * core 30-65 % of its write time (measured by {@code npb-bench throughput}), so an epoch's parts
 * took twice as long to be durable as the disk needed. Raising its nice value did not help
 * reliably: the kernel divides the cores between processes (sessions) first, so a nicer writer
 * only gets more of its own rank's half.
 *
 * <p>Real-time threads are only allowed with {@code CAP_SYS_NICE} or a non-zero
 * {@code RLIMIT_RTPRIO}; without them (the usual case for an unprivileged job) the writer stays in
 * the normal class, and says so once at level FINE: a line on every rank of every job would be noise.
 * A writer that compresses computes for long, so {@link StagedWriter} leaves it in the normal
 * class; the kernel's real-time throttling (by default 95 % of each second) is only a backstop.
 *
 * <p>Measured with {@code npb-bench throughput} (MG class B, 4 ranks on 2 cores): the writers'
 * time waiting for a core fell from 30-65 % to 0-5 % of their write time, and the epoch's write
 * rate (both levels, one disk) from 0.68 to 0.79 of the disk's.
 */
public final class WriterScheduling {
    private static final Logger LOG = Logger.getLogger(WriterScheduling.class.getName());
    private static final int SCHED_FIFO = 1;
    private static final AtomicBoolean SAID = new AtomicBoolean();

    interface LibC extends Library {
        /** {@code param} is {@code struct sched_param}: one int, the priority. */
        int sched_setscheduler(int pid, int policy, int[] param);
    }

    private WriterScheduling() {
    }

    /** Moves the calling thread to {@code SCHED_FIFO} priority 1; true if it is there. */
    public static boolean raiseCallingThread() {
        if (!System.getProperty("os.name", "").startsWith("Linux")) {
            return false;
        }
        int result;
        try {
            // pid 0: the calling thread (Linux schedules threads, not processes).
            result = Holder.LIBC.sched_setscheduler(0, SCHED_FIFO, new int[] {1});
        } catch (LinkageError | RuntimeException e) {
            // LinkageError: also the failed Holder's NoClassDefFoundError on every later call.
            sayOnce("cannot load libc's sched_setscheduler: " + e);
            return false;
        }
        if (result != 0) {
            sayOnce("errno " + Native.getLastError() + " (needs CAP_SYS_NICE or an RLIMIT_RTPRIO above 0)");
            return false;
        }
        return true;
    }

    private static void sayOnce(String why) {
        if (SAID.compareAndSet(false, true)) {
            LOG.fine(() -> "checkpoint writers stay in the normal scheduling class: " + why);
        }
    }

    private static final class Holder {
        static final LibC LIBC = Native.load("c", LibC.class);
    }
}
