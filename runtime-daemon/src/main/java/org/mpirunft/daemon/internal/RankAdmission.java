package org.mpirunft.daemon.internal;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongPredicate;

/**
 * Which processes may speak for a job on the rank channel: a live job process of this node, a
 * descendant of a node daemon this daemon started (or adopted) for the job or of the job's
 * registered mpirun, and owned by the connecting user. Keeps the processes it admitted (a rank,
 * or a warm spare that took a rank: they take a slot of the node), and wakes the ranks that wait
 * for their mpirun's registration.
 */
final class RankAdmission {
    private final String node;
    private final Duration registrationWait;
    /** The mpiruns launchers registered here, by PID, with their jobs (the agent's, read here). */
    private final Map<Long, String> launchers;
    /** Whether a PID is the root of a job process tree that is not this daemon's descendant (adopted, or a Slurm step's). */
    private final LongPredicate foreignRoot;
    /** Processes admitted to the rank channel. */
    private final Set<Long> onChannel = ConcurrentHashMap.newKeySet();
    /** Counts registrations; its monitor wakes the ranks that wait for one ({@link #rankRefusal}). */
    private final AtomicLong registrations = new AtomicLong();

    RankAdmission(String node, Duration registrationWait, Map<Long, String> launchers, LongPredicate foreignRoot) {
        this.node = node;
        this.registrationWait = registrationWait;
        this.launchers = launchers;
        this.foreignRoot = foreignRoot;
    }

    /** A launcher registered an mpirun: the ranks that wait for one decide again. */
    void registered() {
        synchronized (registrations) {
            registrations.incrementAndGet();
            registrations.notifyAll();
        }
    }

    /**
     * Why process {@code pid} of {@code user} cannot speak for {@code job} on the rank channel, or
     * empty if it can ({@link NodeAgent#rankRefusal}).
     *
     * <p>A process of {@code user} in no job's tree may be a rank whose mpirun is not registered
     * yet: the answer then waits for a registration, up to the registration wait, and decides
     * again after each one. Outcome of a wait that runs out: the refusal, which says so. Called
     * on the rank channel's connection thread (one per connection), so a wait holds up no other
     * rank.
     */
    Optional<String> rankRefusal(long pid, String user, String job) {
        long deadline = System.nanoTime() + registrationWait.toNanos();
        while (true) {
            long seen = registrations.get();
            Admission admission = admission(pid, user, job);
            long left = deadline - System.nanoTime();
            if (admission.refusal().isEmpty() || !admission.mayBeUnregistered()) {
                return admission.refusal();
            }
            if (left <= 0) {
                return admission.refusal().map(why -> why + " (no mpirun of " + job + " that started it registered within "
                        + registrationWait.toMillis() + " ms)");
            }
            synchronized (registrations) {
                try {
                    if (registrations.get() == seen) {
                        TimeUnit.NANOSECONDS.timedWait(registrations, left);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return admission.refusal();
                }
            }
        }
    }

    /**
     * The admission rule at one moment.
     *
     * @param mayBeUnregistered the refused process is {@code user}'s and in no job's tree: a
     *                          registration still to come could make it the job's
     */
    private record Admission(Optional<String> refusal, boolean mayBeUnregistered) {
    }

    private Admission admission(long pid, String user, String job) {
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        // The job is the one this daemon tagged the process's ancestor with when it started it
        // (Open MPI's node daemon), or the one a launcher registered the process's mpirun for:
        // a rank's own environment is the user's to set.
        long self = ProcessHandle.current().pid();
        Optional<ProcessHandle> started = process;
        Optional<String> launchedFor = started.map(p -> launchers.get(p.pid()));
        // A tree the previous daemon handed over, or a node daemon that runs as a Slurm step, has
        // its root where our own children would be: known by PID, not by where it came from.
        while (launchedFor.isEmpty() && started.isPresent() && !foreignRoot.test(started.get().pid())
                && started.get().parent().map(ProcessHandle::pid).orElse(self) != self) {
            started = started.get().parent();
            launchedFor = started.map(p -> launchers.get(p.pid()));
        }
        boolean adoptedRoot = started.isPresent() && foreignRoot.test(started.get().pid());
        Optional<String> owner = process.flatMap(p -> p.info().user());
        boolean users = owner.isPresent() && owner.get().equals(user);
        if (launchedFor.isPresent()) {
            if (!launchedFor.get().equals(job)) {
                return new Admission(Optional.of("pid " + pid + " was started by job '" + launchedFor.get() + "''s mpirun, not '" + job + "''s"), false);
            }
        } else if (process.isEmpty()) {
            return new Admission(Optional.of("pid " + pid + " is no job process of " + node), false);
        } else if (started.isEmpty() || (!adoptedRoot && started.get().parent().isEmpty())) {
            return new Admission(Optional.of("pid " + pid + " is no job process of " + node), users);
        } else {
            String tag = LinuxProcesses.environment(started.get().pid(), NodeAgent.JOB_VARIABLE).orElse("");
            if (!tag.equals(job)) {
                return new Admission(Optional.of("pid " + pid + " belongs to job '" + tag + "', not '" + job + "'"), users && tag.isEmpty());
            }
        }
        if (owner.isPresent() && !owner.get().equals(user)) {
            return new Admission(Optional.of("pid " + pid + " is " + owner.get() + "'s, not the connecting user " + user + "'s"), false);
        }
        // Admitted to the rank channel: a rank, also if it started as a warm spare (slotsInUse).
        onChannel.add(pid);
        return new Admission(Optional.empty(), false);
    }

    /**
     * The process {@code pid}, admitted to the rank channel, is an idle warm spare: it waits on
     * the channel for its call and takes no slot until it took a rank (then it says hello again,
     * as that rank, and is admitted as one).
     */
    void idleSpare(long pid) {
        onChannel.remove(pid);
    }

    /** Forgets the admitted processes that are gone. */
    void forgetEnded() {
        onChannel.removeIf(pid -> ProcessHandle.of(pid).isEmpty());
    }

    /** Whether {@code pid} speaks on the rank channel (a rank, or a warm spare that took one). */
    boolean onChannel(long pid) {
        return onChannel.contains(pid);
    }
}
