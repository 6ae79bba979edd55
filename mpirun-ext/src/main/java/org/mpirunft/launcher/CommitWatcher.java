package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;

/**
 * Notices the job's committed epochs on shared storage and reports each once: to the daemons
 * ({@code epochCommitted}, which the scheduler's {@code auto} interval learns the checkpoint
 * cost from) and to the event log. An epoch is committed when its {@code manifest.json} exists
 * (blcr-bridge's {@code CheckpointStore} writes it last, by atomic rename). Its cost is the time
 * from its first part on shared storage to its manifest: the part of a checkpoint that shared
 * storage makes the job wait for. Epochs committed before this watcher started are not
 * reported again. Not thread-safe: call {@link #scan} from one thread, periodically.
 */
public final class CommitWatcher {
    private static final Logger LOG = Logger.getLogger(CommitWatcher.class.getName());
    private static final Pattern EPOCH_DIR = Pattern.compile("epoch-(\\d{10})");
    private static final String MANIFEST = "manifest.json";

    private final String job;
    private final Path jobDirectory;
    private final DaemonClient daemon;
    private final EventLog events;
    private long lastReported;

    public CommitWatcher(String job, Path checkpointDir, DaemonClient daemon, EventLog events) {
        this.job = job;
        this.jobDirectory = checkpointDir.resolve(job);
        this.daemon = daemon;
        this.events = events;
        this.lastReported = committedEpochs().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    /** The newest epoch reported so far (or found committed at start). */
    public long lastReported() {
        return lastReported;
    }

    /** Reports every epoch committed since the last scan, oldest first; returns them. */
    public List<Long> scan() {
        List<Long> reported = new ArrayList<>();
        for (long epoch : committedEpochs()) {
            if (epoch <= lastReported) {
                continue;
            }
            long costMillis = cost(epochDirectory(epoch));
            events.append(new LauncherEvent.Checkpoint(epoch, "committed", costMillis));
            try {
                daemon.epochCommitted(job, epoch, costMillis);
            } catch (DaemonException e) {
                LOG.warning(() -> "job " + job + ": cannot report epoch " + epoch + " to the daemon: " + e.getMessage());
            }
            lastReported = epoch;
            reported.add(epoch);
        }
        return reported;
    }

    private Path epochDirectory(long epoch) {
        return jobDirectory.resolve(String.format("epoch-%010d", epoch));
    }

    private List<Long> committedEpochs() {
        List<Long> epochs = new ArrayList<>();
        if (!Files.isDirectory(jobDirectory)) {
            return epochs;
        }
        try (DirectoryStream<Path> children = Files.newDirectoryStream(jobDirectory)) {
            for (Path child : children) {
                Matcher m = EPOCH_DIR.matcher(child.getFileName().toString());
                if (m.matches() && Files.isRegularFile(child.resolve(MANIFEST))) {
                    epochs.add(Long.parseLong(m.group(1)));
                }
            }
        } catch (IOException e) {
            LOG.fine(() -> "job " + job + ": cannot list " + jobDirectory + ": " + e.getMessage());
        }
        epochs.sort(null);
        return epochs;
    }

    /** Manifest time minus the earliest part's time, in ms; 0 if the files are gone meanwhile. */
    private static long cost(Path epochDirectory) {
        try {
            long manifest = Files.getLastModifiedTime(epochDirectory.resolve(MANIFEST)).toMillis();
            long first = manifest;
            try (DirectoryStream<Path> parts = Files.newDirectoryStream(epochDirectory, "rank-*.part")) {
                for (Path part : parts) {
                    first = Math.min(first, Files.getLastModifiedTime(part).toMillis());
                }
            }
            return Math.max(0, manifest - first);
        } catch (NoSuchFileException gone) {
            return 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
