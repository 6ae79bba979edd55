package org.mpirunft.bridge.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Whether this rank would like a checkpoint at the current safe point: every N safe points,
 * every T of elapsed time, or on an outside request. Ranks may disagree (clocks, requests
 * arriving at different moments), so the coordinator agrees on the answer collectively.
 */
final class CheckpointPolicy {
    /**
     * The scheduler's checkpoint order, written into the control directory by the node's daemon
     * (mpirun-ft delivers it); its content is for people, its modification time is the request.
     */
    static final String REQUEST_FILE = "checkpoint.json";

    private final int everyIterations;
    private final long intervalNanos;
    private final Optional<Path> requestFile;
    private final LongSupplier nanoClock;
    private long lastCheckpointNanos;
    private long lastRequestSeen = -1;

    CheckpointPolicy(int everyIterations, Optional<Duration> interval, Optional<Path> controlDirectory, LongSupplier nanoClock) {
        this.everyIterations = everyIterations;
        this.intervalNanos = interval.map(Duration::toNanos).orElse(0L);
        this.requestFile = controlDirectory.map(directory -> directory.resolve(REQUEST_FILE));
        this.nanoClock = nanoClock;
        this.lastCheckpointNanos = nanoClock.getAsLong();
    }

    /** Called at each safe point; {@code progress} counts iterations done since the run began. */
    boolean wanted(long iteration, long progress) {
        if (everyIterations > 0 && progress > 0 && iteration % everyIterations == 0) {
            return true;
        }
        if (intervalNanos > 0 && nanoClock.getAsLong() - lastCheckpointNanos >= intervalNanos) {
            return true;
        }
        return requested();
    }

    void checkpointTaken() {
        lastCheckpointNanos = nanoClock.getAsLong();
    }

    // A request is the request file's modification time changing: touching it asks again.
    private boolean requested() {
        if (requestFile.isEmpty()) {
            return false;
        }
        try {
            long modified = Files.getLastModifiedTime(requestFile.get()).toMillis();
            if (modified != lastRequestSeen) {
                lastRequestSeen = modified;
                return true;
            }
        } catch (java.io.IOException absent) {
            // No request file: nothing asked.
        }
        return false;
    }
}
