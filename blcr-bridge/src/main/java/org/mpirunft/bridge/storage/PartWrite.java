package org.mpirunft.bridge.storage;

import java.nio.file.Path;
import java.util.Locale;

/**
 * One part file a {@link CheckpointStore} wrote ({@link Op#WRITE}: a rank's part itself) or copied
 * from another store ({@link Op#COPY}), as the store timed it. A rank's writer thread sees its local
 * write and its copy to shared storage as one time; each store sees its own level's.
 *
 * @param root        the store's root directory (the job's directory's parent): which level
 * @param startMicros wall clock at the start, microseconds since 1970: the processes of one machine share it
 * @param dataNanos   until the bytes were handed to the file (CRC, codec and the copy into the page cache)
 * @param totalNanos  until the file was forced, renamed into place and its directory forced: durable
 */
public record PartWrite(Op op, int rank, long epoch, Path root, long bytes, long startMicros, long dataNanos, long totalNanos) {
    /** What the store did with the part. */
    public enum Op {
        WRITE,
        COPY;

        /** {@code write} or {@code copy}. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
