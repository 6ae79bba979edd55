package org.mpirunft.npb.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.mpirunft.common.FileTrees;
import org.mpirunft.common.Json;
import org.mpirunft.common.PrivateDirectories;

/**
 * One run's files on the host, as mpirun-ft and the daemons left them: the job's event log and
 * checkpoints in the shared storage, a transparent job's epochs, every node's local parts. Read
 * after the run (the newest committed epoch's part sizes, the read bandwidth of a part), then
 * deleted: class C parts are GBs.
 *
 * @param checkpoints the shared checkpoint root on the host ({@code --checkpoint-dir})
 * @param cluster     the cluster the job ran on
 * @param job         the job's name
 */
record JobFiles(Path checkpoints, BenchCluster cluster, String job) {
    /** The job's directory: the bench runs its jobs as root, so their files are in root's directory of the checkpoint storage. */
    Path directory() {
        return PrivateDirectories.ofUser(checkpoints, "root").resolve(job);
    }

    /** mpirun-ft's event log of the job. */
    Path eventLog() {
        return directory().resolve("events.jsonl");
    }

    /**
     * The storage path's bandwidth as a replacement sees it: the failed rank's part of the newest
     * committed epoch, read whole from the same directory into a direct buffer, right after the
     * run (in the page cache, as the part the replacement read had just been written). Null if
     * there is no such part.
     */
    Double storageReadMBps(int rank) throws IOException {
        Optional<Path> newest = newestCommittedEpoch();
        if (newest.isEmpty()) {
            return null;
        }
        Path part = newest.get().resolve(org.mpirunft.bridge.storage.CheckpointStore.partFileName(rank));
        if (!Files.isRegularFile(part)) {
            return null;
        }
        try (java.nio.channels.FileChannel in = java.nio.channels.FileChannel.open(part, java.nio.file.StandardOpenOption.READ)) {
            long size = in.size();
            if (size == 0 || size > Integer.MAX_VALUE) {
                return null;
            }
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocateDirect((int) size);
            long start = System.nanoTime();
            while (buffer.hasRemaining() && in.read(buffer) >= 0) {
                // reads until the part is whole
            }
            return NpbOutput.StateTransfer.megabytesPerSecond(size, (System.nanoTime() - start) / 1e6);
        }
    }

    /** Part sizes of the newest committed epoch, from its manifest; empty if none was committed. */
    List<Long> manifestParts() throws IOException {
        Optional<Path> newest = newestCommittedEpoch();
        if (newest.isEmpty()) {
            return List.of();
        }
        JsonNode manifest = Json.MAPPER.readTree(newest.get().resolve("manifest.json").toFile());
        List<Long> bytes = new ArrayList<>();
        manifest.path("parts").forEach(part -> bytes.add(part.path("bytes").asLong()));
        return List.copyOf(bytes);
    }

    /**
     * Where the daemons keep a transparent job's epochs: root's own directory of the cluster's shared
     * storage (the scheduler's {@code /shared/mpirun-ft}), not the job's checkpoint directory
     * (runtime-daemon's TransparentNode.imagesOnShared).
     */
    Path transparentEpochs() {
        return cluster.stateDirectory().resolve("shared/mpirun-ft/.transparent/root").resolve(job);
    }

    /** Frees the run's checkpoints: shared storage and every node's local storage. */
    void deleteCheckpoints() throws IOException {
        FileTrees.delete(directory());
        FileTrees.delete(transparentEpochs());
        Path nodes = cluster.stateDirectory().resolve("nodes");
        if (Files.isDirectory(nodes)) {
            try (Stream<Path> all = Files.list(nodes)) {
                for (Path node : all.toList()) {
                    FileTrees.delete(PrivateDirectories.ofUser(node.resolve("local/ckpt"), "root").resolve(job));
                }
            }
        }
    }

    private Optional<Path> newestCommittedEpoch() throws IOException {
        Path jobDirectory = directory();
        if (!Files.isDirectory(jobDirectory)) {
            return Optional.empty();
        }
        try (Stream<Path> epochs = Files.list(jobDirectory)) {
            return epochs.filter(p -> p.getFileName().toString().matches("epoch-\\d{10}"))
                    .filter(p -> Files.isRegularFile(p.resolve("manifest.json"))).max(Comparator.naturalOrder());
        }
    }
}
