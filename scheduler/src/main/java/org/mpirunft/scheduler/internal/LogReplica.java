package org.mpirunft.scheduler.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.logging.Logger;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.ReplicatedLog;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.SchedulerCore;
import org.mpirunft.scheduler.SchedulerService;
import org.mpirunft.scheduler.SchedulerUpdate;

/**
 * This daemon's {@link SchedulerCore} as a replica of the group's log ({@link ReplicatedLog}):
 * it applies the committed entries to the core in log order, takes the membership's views and
 * the log's leadership to the core, and owns the answer to "does this daemon lead the
 * scheduler": it is the log's leader, its own {@link LogEntry.LeaderStarted} is applied, and the
 * group has not expelled it. It is also the core's {@link SchedulerCore.Outputs}: a decision
 * becomes an entry of the log (only while leading), and a transition waits for the service to
 * hand it out ({@link #takeTransitions}).
 *
 * <p><b>Leader change.</b> A new leader's table may lack entries an earlier leader committed
 * until it applies an entry of its own term. So it appends {@link LogEntry.LeaderStarted} first
 * and decides only once that entry is applied; a leader that lost the role stops deciding at
 * once. A log that never held a table takes the one a file holds (an older release's, or the
 * disaster copy) as its first leader's {@link LogEntry.Imported}.
 *
 * <p>Not thread-safe: {@link SchedulerServiceImpl} calls it only under its lock, from the
 * membership's, the log's, the callers' and its executor's threads, and hands out what it
 * produced once the lock is released.
 */
final class LogReplica {
    private static final Logger LOG = Logger.getLogger(SchedulerService.class.getName());

    private final String self;
    private final ReplicatedLog log;
    private final JobTableStore store;
    private final PendingRequests pending;
    private final LongSupplier nanoTime;
    /** The table the file held at start, for the first leader of a log that never held one. */
    private final List<JobRecord> fileTable;
    private final SchedulerCore core;
    private ClusterView view = ClusterView.NONE;
    /** Leads: the log's leader, and its own {@link LogEntry.LeaderStarted} is applied. */
    private boolean leading;
    /** Expelled from the group: act on nothing until a newer view takes this daemon back. */
    private boolean fenced;
    /** Whether the log took a table in ({@link LogEntry.Imported}); part of the replicated state. */
    private boolean imported;
    /** Entries applied since the log was last replayed from its start; the file's position. */
    private long applied;
    /** Transitions of the current call, handed to the listeners once the lock is released. */
    private final List<JobTransition> transitionsOut = new ArrayList<>();

    /** The core's outputs; called by the core, so always under the service's lock. */
    private final SchedulerCore.Outputs outputs = new SchedulerCore.Outputs() {
        @Override
        public void replicate(SchedulerUpdate update) {
            if (!leading || fenced) {
                LOG.fine(() -> self + ": not leading, not proposing " + update);
                return;
            }
            appendEntry(new LogEntry.Update(LogEntry.VERSION, update));
        }

        @Override
        public void transition(JobTransition transition) {
            transitionsOut.add(transition);
        }
    };

    /** {@code coreWith} makes the core that decides through this replica's outputs. */
    LogReplica(String self, ReplicatedLog log, JobTableStore store, PendingRequests pending, LongSupplier nanoTime,
               List<JobRecord> fileTable, Function<SchedulerCore.Outputs, SchedulerCore> coreWith) {
        this.self = self;
        this.log = log;
        this.store = store;
        this.pending = pending;
        this.nanoTime = nanoTime;
        this.fileTable = fileTable;
        this.core = coreWith.apply(outputs);
    }

    SchedulerCore core() {
        return core;
    }

    /** Whether this daemon leads the scheduler now. */
    boolean leads() {
        return leading && !fenced;
    }

    /** The transitions applied since the last call, to hand out with no lock held. */
    List<JobTransition> takeTransitions() {
        List<JobTransition> transitions = List.copyOf(transitionsOut);
        transitionsOut.clear();
        return transitions;
    }

    /** The table to write to the file, at this replica's position in the log. */
    JobTableStore.Saved saved() {
        return new JobTableStore.Saved(log.term(), applied, List.copyOf(core.table().jobs()));
    }

    // ---------------------------------------------------------------- membership

    /** The group expelled this daemon. */
    void expelled() {
        fenced = true;
        leading = false;
        core.onView(view, false);
        LOG.warning(() -> self + ": expelled from the group; the scheduler acts on nothing until the group takes this node back");
    }

    /** A view, with the membership event that brought it, if any. */
    void viewChanged(ClusterView newView, Optional<MembershipEvent> event) {
        // Events of one view come one by one, and start() may have taken the view already: only
        // a newer view counts, or any view of a new incarnation of this member (after a
        // leave and a join, in a group that may have started afresh and numbers from 0).
        boolean newer = view == ClusterView.NONE || newView.id() > view.id()
                || !newView.member(self).map(Member::id).equals(view.member(self).map(Member::id));
        if (newer) {
            view = newView;
            if (fenced && log.isLeader() && !leading) {
                // Taken back while still the log's leader (no majority elected another while
                // it was out): its leadership never changed, so nothing else would tell it to
                // act again. It starts as a new leader does, with an entry of its term.
                LOG.info(() -> self + ": taken back in view " + newView.id() + " as the log's leader; leading the scheduler again");
                startLeading();
            }
            fenced = false; // a view that holds this daemon took it back
        }
        boolean lead = leading && !fenced;
        if (event.isPresent()) {
            core.onMembershipEvent(event.get(), lead);
        } else {
            core.onView(newView, lead);
        }
    }

    /** The log's leadership came or went. */
    void leadershipChanged(boolean isLeader) {
        if (!isLeader) {
            if (leading) {
                leading = false;
                LOG.info(() -> self + ": no longer leads the scheduler");
                core.onView(view, false);
            }
            return;
        }
        startLeading();
    }

    /** As the log's leader: the entries that make this daemon lead once applied (see {@link LogEntry.LeaderStarted}). */
    private void startLeading() {
        if (!imported) {
            // Applied only if the log has no table yet when it commits: a second one is ignored.
            appendEntry(new LogEntry.Imported(LogEntry.VERSION, fileTable));
        }
        appendEntry(new LogEntry.LeaderStarted(LogEntry.VERSION, self, log.term()));
    }

    // ---------------------------------------------------------------- the log

    /** The log is about to be read again from its start. */
    void reset() {
        leading = false;
        imported = false;
        applied = 0;
        core.install(List.of());
        transitionsOut.clear(); // nothing ended: the log is about to be read again
    }

    /**
     * A committed entry, in log order; {@code replayed}: read from this daemon's own copy as it
     * joins. True if the file's copy of the table is due: this daemon leads and applied an
     * update, or has just started leading.
     */
    boolean apply(LogEntry entry, boolean replayed) {
        boolean copyDue = false;
        applied++;
        switch (entry) {
            case LogEntry.Update u -> {
                core.apply(u.update());
                copyDue = leading;
            }
            case LogEntry.Imported i -> {
                if (!imported) {
                    imported = true;
                    core.install(i.jobs());
                    LOG.info(() -> self + ": the log took the table of " + store.file() + ": " + i.jobs().size() + " jobs");
                }
            }
            case LogEntry.LeaderStarted l -> {
                if (l.node().equals(self) && l.term() == log.term() && log.isLeader() && !leading) {
                    leading = true;
                    LOG.info(() -> self + ": leading the scheduler, term " + l.term() + ", voters " + log.voters());
                    core.onView(view, !fenced);
                    copyDue = true;
                }
                if (!replayed) {
                    pending.sendAllTo(l.node(), nanoTime.getAsLong());
                }
            }
        }
        if (replayed) {
            transitionsOut.clear(); // acted on before this daemon restarted
        }
        return copyDue;
    }

    LogEntry.Snapshot snapshot() {
        return new LogEntry.Snapshot(LogEntry.VERSION, imported, List.copyOf(core.table().jobs()));
    }

    void install(LogEntry.Snapshot snapshot) {
        imported = snapshot.imported();
        core.install(snapshot.jobs());
    }

    private void appendEntry(LogEntry entry) {
        log.append(SchedulerCodec.encode(entry)).exceptionally(failure -> {
            // Not the leader any more: the entry is dropped, or the next leader commits it; the table says which.
            LOG.fine(() -> self + ": " + entry.getClass().getSimpleName() + " not committed: " + failure.getMessage());
            return null;
        });
    }

    // ---------------------------------------------------------------- messages and the tick

    /** A request from another daemon (or this one): only the leader acts on it. */
    void onMessage(GroupMessage message) {
        if (!leading || fenced) {
            return; // the requester sends it again, to the leader it knows then
        }
        switch (message) {
            case GroupMessage.Request r -> core.request(r.update());
            case GroupMessage.CheckpointRequest r -> core.checkpointNow(r.job(), r.afterEpoch());
            case GroupMessage.FailureRequest r -> core.failureReported(r.job(), r.report());
            case GroupMessage.RestartRequest r -> core.restartNeeded(r.job(), r.source(), r.reason(), r.reporter());
            case GroupMessage.MigrationRequest r -> core.migrationRequested(r.job(), r.node(), r.reason());
        }
    }

    /** The periodic work of the core: every daemon's holds, the leader's orders. */
    void tick() {
        core.expireHolds();
        if (leading && !fenced) {
            core.tick();
        }
    }
}
