package org.mpirunft.bridge.storage;

/**
 * Told of each part file a {@link CheckpointStore} writes or copies, on the thread that does it.
 * Both methods do nothing unless overridden; they must return quickly, since the write waits for
 * them.
 */
public interface PartWriteListener {
    /** Listens to nothing. */
    PartWriteListener NONE = new PartWriteListener() { };

    /**
     * Right before the store starts to write or copy {@code rank}'s part of {@code epoch}, on the
     * thread that will do it. With {@link #partWritten}, called on the same thread once the part
     * is durable, it brackets the write, so that a listener can read that thread's own clocks
     * around it (its CPU time, its scheduler statistics).
     */
    default void partWriteStarting(PartWrite.Op op, int rank, long epoch) {
    }

    /** The part is durable, as {@code write} says; not called for a write that failed. */
    default void partWritten(PartWrite write) {
    }
}
