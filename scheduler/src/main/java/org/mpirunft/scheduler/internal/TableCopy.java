package org.mpirunft.scheduler.internal;

import java.io.IOException;
import java.time.Clock;
import java.util.logging.Logger;
import org.mpirunft.scheduler.SchedulerService;

/**
 * The leader's copy of the job table on shared storage ({@link JobTableStore}), for operators
 * and for a cluster whose logs are lost: one write, stamped with the wall clock, and what it
 * says when writes fail (once, until one succeeds again). When to write is the service's: after
 * each change the leader applies, coalesced on its executor, and when it closes.
 *
 * <p>Not thread-safe: only the writing thread calls it (the service's executor, or its close
 * once the executor ended).
 */
final class TableCopy {
    private static final Logger LOG = Logger.getLogger(SchedulerService.class.getName());

    private final String self;
    private final JobTableStore store;
    private final Clock wallClock;
    /** Whether the last write failed: a failure is said once. */
    private boolean writeFailing;

    TableCopy(String self, JobTableStore store, Clock wallClock) {
        this.self = self;
        this.store = store;
        this.wallClock = wallClock;
    }

    /** Writes {@code saved}; a failure leaves the file behind, and the log holds the table. */
    void write(JobTableStore.Saved saved) {
        try {
            store.save(saved, wallClock.instant());
            if (writeFailing) {
                writeFailing = false;
                LOG.info(() -> self + ": job table written to " + store.file() + " again");
            }
        } catch (IOException | RuntimeException e) {
            if (!writeFailing) {
                LOG.warning(() -> self + ": cannot write the job table to " + store.file() + ": " + e
                        + "; the table is in the group's log, this copy is behind until the next change is written");
            }
            writeFailing = true;
        }
    }
}
