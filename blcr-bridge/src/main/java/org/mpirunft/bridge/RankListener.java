package org.mpirunft.bridge;

import java.util.Locale;
import org.mpirunft.bridge.storage.PartWriteListener;

/**
 * What the rank library tells the program it runs in, as it happens: every part file its stores
 * write or copy ({@link PartWriteListener}), every transfer of a rank's state in a recovery, and a
 * warm spare's idle wait. A program that measures itself (NPB's {@code npb}, for the benchmark
 * that runs it) registers one with {@link FtRank#init(String[], FtConfig, RankListener)} and
 * reports what it wants, how it wants; the library prints none of it.
 *
 * <p>Every method does nothing unless overridden. They are called on the library's threads (a
 * writer thread, a replacement's state reader, the main thread, an idle warm spare's), so an
 * implementation must be thread-safe and return quickly. An exception thrown from one is logged
 * and goes no further.
 */
public interface RankListener extends PartWriteListener {
    /** Listens to nothing. */
    RankListener NONE = new RankListener() { };

    /**
     * This rank got its state for a rollback from somewhere other than its own memory: its part
     * read from disk (a replacement's, while its program sets up), or sent by the rank holding its
     * partner copy, or rebuilt by its XOR set.
     */
    default void stateTransferred(StateTransfer transfer) {
    }

    /**
     * An idle warm spare was released at the job's end without being called: the process ends
     * right after, and the program's own code never ran in it.
     */
    default void spareReleased(SpareRelease release) {
    }

    /**
     * One transfer of a rank's state: {@code bytes} of epoch {@code epoch}'s part in {@code nanos}.
     *
     * @param owner whose part it is: {@code rank}'s own, or, for an epoch laid out again for another
     *              rank count, the part of that count's rank {@code owner}
     */
    record StateTransfer(int rank, long epoch, int owner, long bytes, long nanos, Source from) {
        /** Where the state came from. */
        public enum Source {
            /** Node-local storage. */
            LOCAL,
            /** Shared storage. */
            SHARED,
            /** The memory of the rank that holds this rank's partner copy. */
            PARTNER,
            /** Rebuilt from the parity of this rank's XOR set. */
            XOR;

            /** {@code local}, {@code shared}, {@code partner} or {@code xor}. */
            public String label() {
                return name().toLowerCase(Locale.ROOT);
            }
        }
    }

    /**
     * A warm spare's wait, from when it became idle to its release.
     *
     * @param worldRank its rank in the job's launch ({@code MPI_COMM_WORLD}), spares included
     * @param cpuNanos  the CPU time its whole process used meanwhile (every thread, the JVM's and MPI's too)
     */
    record SpareRelease(int worldRank, long idleNanos, long cpuNanos) {
    }
}
