package org.mpirunft.scheduler.internal;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.ReplicatedLog;
import org.mpirunft.scheduler.JobTable;
import org.mpirunft.scheduler.SchedulerService;

/**
 * Requests this daemon sent to the leader and has not yet seen applied in its own table, and
 * their way there: to the log's leader as this daemon knows it, as a message of the membership.
 * A request is repeated (to whoever leads then, and at once to a new leader) until its
 * {@link Check} says the table shows its effect, so none is lost when the leader changes; the
 * leader ignores what is already done. Not thread-safe: the service's lock guards it.
 */
final class PendingRequests {
    private static final Logger LOG = Logger.getLogger(SchedulerService.class.getName());

    /** Looks at the table; once the request took effect, returns what completes its future. */
    @FunctionalInterface
    interface Check {
        Optional<Runnable> done(JobTable table);
    }

    private static final class Pending {
        final GroupMessage message;
        final Check check;
        final CompletableFuture<?> future;
        long sentAtNanos;

        Pending(GroupMessage message, Check check, CompletableFuture<?> future, long sentAtNanos) {
            this.message = message;
            this.check = check;
            this.future = future;
            this.sentAtNanos = sentAtNanos;
        }
    }

    private final String self;
    private final Membership membership;
    private final ReplicatedLog log;
    private final List<Pending> pending = new ArrayList<>();

    PendingRequests(String self, Membership membership, ReplicatedLog log) {
        this.self = self;
        this.membership = membership;
        this.log = log;
    }

    /** Keeps {@code message} until {@code check} sees its effect, and sends it to the leader now. */
    void send(GroupMessage message, Check check, CompletableFuture<?> future, long nowNanos) {
        pending.add(new Pending(message, check, future, nowNanos));
        sendToLeader(message);
    }

    boolean isEmpty() {
        return pending.isEmpty();
    }

    int size() {
        return pending.size();
    }

    /** Removes the requests that took effect; returns their completions, to run outside the lock. */
    List<Runnable> settle(JobTable table) {
        List<Runnable> completions = new ArrayList<>();
        for (Iterator<Pending> it = pending.iterator(); it.hasNext(); ) {
            Pending p = it.next();
            Optional<Runnable> done = p.future.isDone() ? Optional.of(() -> { }) : p.check.done(table);
            if (done.isPresent()) {
                it.remove();
                completions.add(done.get());
            }
        }
        return completions;
    }

    /** Sends again, to the leader, the requests last sent at least {@code periodNanos} ago (the tick's repeat). */
    void repeat(long nowNanos, long periodNanos) {
        for (GroupMessage message : due(nowNanos, periodNanos)) {
            sendToLeader(message);
        }
    }

    /**
     * Sends every request still pending to {@code leader}, whose first entry this daemon just
     * applied: it leads now (a leader acts from its own entry on). A request sent to the leader
     * before (or to nobody, during the election) may have been lost with it; waiting for the tick
     * would hold it up to a tick period, and a rank's failure report held that long holds the pause.
     */
    void sendAllTo(String leader, long nowNanos) {
        List<GroupMessage> all = due(nowNanos, 0);
        if (!all.isEmpty()) {
            LOG.fine(() -> self + ": " + all.size() + " pending request(s) to the new leader " + leader);
            all.forEach(message -> sendTo(leader, message));
        }
    }

    /** The requests last sent at least {@code periodNanos} ago, marked as sent now. */
    private List<GroupMessage> due(long nowNanos, long periodNanos) {
        List<GroupMessage> due = new ArrayList<>();
        for (Pending p : pending) {
            if (nowNanos - p.sentAtNanos >= periodNanos) {
                p.sentAtNanos = nowNanos;
                due.add(p.message);
            }
        }
        return due;
    }

    /** Removes every request; returns what fails their futures with {@code cause}. */
    List<Runnable> failAll(RuntimeException cause) {
        List<Runnable> failures = new ArrayList<>();
        for (Pending p : pending) {
            failures.add(() -> p.future.completeExceptionally(cause));
        }
        pending.clear();
        return failures;
    }

    /** To the log's leader as this daemon knows it; during an election to nobody, and the tick sends it again. */
    private void sendToLeader(GroupMessage message) {
        log.leader().ifPresent(to -> sendTo(to, message));
    }

    private void sendTo(String to, GroupMessage message) {
        if (!membership.send(to, SchedulerCodec.encode(message))) {
            LOG.fine(() -> self + ": could not send " + message.getClass().getSimpleName() + " to " + to);
        }
    }
}
