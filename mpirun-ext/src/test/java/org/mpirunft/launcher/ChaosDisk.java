package org.mpirunft.launcher;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The campaign's checkpoint directory as a disk that can be filled: scripts/chaos mounts a tmpfs
 * of its own there (a few hundred MB) before the cluster comes up, so that every node sees it at
 * the same path. The full-disk fault writes a filler file until the file system refuses
 * (ENOSPC), and deletes it after a while. It refuses to fill anything but a small tmpfs, so that
 * a campaign started without the script's mount cannot fill the machine's disk.
 */
final class ChaosDisk {
    /** No tmpfs larger than this is filled: the script mounts one well below it. */
    static final long LARGEST_FILLABLE_BYTES = 1L << 30;
    private static final String FILLER = ".chaos-full-disk";
    private static final int CHUNK = 1 << 20;

    private final Path directory;

    ChaosDisk(Path directory) {
        this.directory = directory;
    }

    /** Why this directory cannot be filled safely, or empty. */
    Optional<String> unfillable() {
        try {
            FileStore store = Files.getFileStore(directory);
            if (!store.type().equals("tmpfs")) {
                return Optional.of(directory + " is on " + store.type() + ", not the campaign's tmpfs (scripts/chaos mounts it)");
            }
            if (store.getTotalSpace() > LARGEST_FILLABLE_BYTES) {
                return Optional.of(directory + "'s tmpfs has " + store.getTotalSpace() / (1 << 20) + " MB, more than the "
                        + LARGEST_FILLABLE_BYTES / (1 << 20) + " MB the campaign fills");
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.of("cannot look at " + directory + ": " + e.getMessage());
        }
    }

    /** Writes the filler until the disk is full; returns the bytes written (the file is kept until {@link #free}). */
    long fill() throws IOException {
        byte[] chunk = new byte[CHUNK];
        long written = 0;
        try (OutputStream out = Files.newOutputStream(directory.resolve(FILLER))) {
            while (true) {
                out.write(chunk);
                written += chunk.length;
            }
        } catch (IOException full) {
            if (Files.getFileStore(directory).getUsableSpace() >= CHUNK) {
                free();
                throw new IOException("the filler stopped with " + Files.getFileStore(directory).getUsableSpace() + " bytes still free: "
                        + full.getMessage(), full);
            }
        }
        return written;
    }

    /** Bytes free now. */
    long usable() throws IOException {
        return Files.getFileStore(directory).getUsableSpace();
    }

    /** Deletes the filler, if it is there. */
    void free() throws IOException {
        Files.deleteIfExists(directory.resolve(FILLER));
    }
}
