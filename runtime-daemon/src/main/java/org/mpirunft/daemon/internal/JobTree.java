package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.mpirunft.common.JobOwner;
import org.mpirunft.daemon.protocol.PeerMessage.TransparentPart;

/**
 * A transparent job's process tree on this node, as CRIU dumps and restores it: which tree is
 * the job's here (its mpirun on the launcher's node, else the node daemon the agent started),
 * its processes and threads, the waits on them around a dump (a process caught in its exit) and
 * a restore (the killed tree reaped and its IDs free), and the check that a restored tree runs
 * as its owner.
 */
final class JobTree {
    private static final Logger LOG = Logger.getLogger(JobTree.class.getName());
    private static final Duration REAP_BOUND = Duration.ofSeconds(10);
    /** How long an exit in progress may take to finish: a process's threads end within milliseconds of its exit, unless the node is starved. */
    private static final Duration EXIT_BOUND = Duration.ofSeconds(2);

    private final String node;
    private final NodeAgent agent;

    JobTree(String node, NodeAgent agent) {
        this.node = node;
        this.agent = agent;
    }

    /** The roots of the job's process trees here: its mpirun on the launcher's node, else the node daemons the agent started. */
    List<Long> roots(String job) {
        Optional<Long> launcher = agent.launcherOf(job);
        if (launcher.isPresent()) {
            return List.of(launcher.get());
        }
        return agent.jobRoots(job);
    }

    /** The one root of the job's tree here: transparent mode dumps one tree per node. */
    long singleRoot(String job) {
        List<Long> roots = roots(job);
        if (roots.size() != 1) {
            throw new IllegalStateException(node + ": transparent mode dumps one process tree of a job per node; job " + job
                    + " has " + roots.size() + " here " + roots);
        }
        return roots.getFirst();
    }

    /** {@code root} and its descendants; none if it is gone. */
    static List<Long> treePids(long root) {
        List<Long> pids = new ArrayList<>();
        ProcessHandle.of(root).ifPresent(handle -> {
            pids.add(root);
            handle.descendants().forEach(d -> pids.add(d.pid()));
        });
        return pids;
    }

    /** Every process and thread ID of {@code pids}. */
    static List<Long> threadIds(List<Long> pids) {
        List<Long> ids = new ArrayList<>();
        for (long pid : pids) {
            try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
                tasks.forEach(task -> ids.add(Long.parseLong(task.getFileName().toString())));
            } catch (IOException | NumberFormatException e) {
                ids.add(pid);
            }
        }
        return ids;
    }

    /**
     * Kills this node's part of the job and waits until its processes are gone: a restored
     * process needs its PID back.
     */
    void killAndReap(String job) {
        Set<Long> pids = new LinkedHashSet<>();
        for (long root : roots(job)) {
            pids.addAll(treePids(root));
        }
        // Killed on purpose: a restored mpirun's exit is no news for its launcher.
        pids.forEach(agent::unwatch);
        agent.kill(job);
        agent.launcherOf(job).ifPresent(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        pids.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        long deadline = System.nanoTime() + REAP_BOUND.toNanos();
        // A restored process needs its PID back: wait until every one is reaped (we reap the node
        // daemons' trees; mpirun's parent, mpirun-ft, reaps mpirun).
        while (pids.stream().anyMatch(pid -> Files.exists(Path.of("/proc", Long.toString(pid))))) {
            agent.reapAdopted();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(node + ": job " + job + "'s processes " + pids + " were not reaped within "
                        + REAP_BOUND.toSeconds() + " s");
            }
            sleep(Duration.ofMillis(10));
        }
    }

    /**
     * Waits, within the reap bound, until no process or thread here has an ID of the part: the
     * killed tree's, reaped a moment after the kill. One that stays taken belongs to another
     * process, and CRIU, restoring in this node's PID namespace, cannot restore the part here.
     */
    void awaitFreeIds(TransparentPart part) {
        long deadline = System.nanoTime() + REAP_BOUND.toNanos();
        while (true) {
            agent.reapAdopted();
            List<Long> taken = part.ids().stream().filter(id -> Files.exists(Path.of("/proc", Long.toString(id)))).toList();
            if (taken.isEmpty()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(node + ": cannot restore " + part.node() + "'s part here: process or thread IDs "
                        + taken + " are taken (by " + LinuxProcesses.commandName(taken.getFirst()) + ", ...), and CRIU restores them as they were");
            }
            sleep(Duration.ofMillis(10));
        }
    }

    /**
     * Waits, within {@link #EXIT_BOUND}, until no process of the tree at {@code root} is a zombie
     * with threads still exiting; returns those it saw (or waited for in vain: the second dump
     * then fails with CRIU's message, and the checkpoint is abandoned).
     */
    static List<Long> awaitNoExitingProcess(long root) {
        Set<Long> seen = new java.util.TreeSet<>();
        long deadline = System.nanoTime() + EXIT_BOUND.toNanos();
        while (true) {
            List<Long> exiting = treePids(root).stream().filter(JobTree::exitingWithThreads).toList();
            seen.addAll(exiting);
            if (exiting.isEmpty() || System.nanoTime() > deadline) {
                return List.copyOf(seen);
            }
            sleep(Duration.ofMillis(10));
        }
    }

    /** Whether {@code pid} is a zombie (its leader exited) with more than one thread left, from {@code /proc}. */
    static boolean exitingWithThreads(long pid) {
        Path proc = Path.of("/proc", Long.toString(pid));
        try (Stream<Path> tasks = Files.list(proc.resolve("task"))) {
            String stat = Files.readString(proc.resolve("stat"));
            // The state follows the command name, which may hold spaces and parentheses: after the last ')'.
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z") && tasks.count() > 1;
        } catch (IOException | java.io.UncheckedIOException | IndexOutOfBoundsException e) {
            return false; // Gone.
        }
    }

    /**
     * Every thread of the restored tree runs as the job's owner: real, effective, saved and
     * file-system uid the owner's, the gids the owner's primary group, and, for a user, the
     * owner's supplementary groups as this node knows them (as {@link AsOwner} starts the tree).
     * CRIU gives the processes the credentials in their images; this holds the restore to the
     * job's owner whatever the images say. A tree that does not is killed, and the restore fails.
     */
    void requireRunsAs(long root, JobOwner owner, Accounts.Account account, String job) {
        List<Long> pids = treePids(root);
        for (long pid : pids) {
            for (long task : threadIds(List.of(pid))) {
                Optional<String> wrong = RestoredCredentials.mismatch(Path.of("/proc", Long.toString(pid), "task", Long.toString(task),
                        "status"), owner, account);
                if (wrong.isPresent()) {
                    pids.forEach(p -> ProcessHandle.of(p).ifPresent(ProcessHandle::destroyForcibly));
                    throw new IllegalStateException(node + ": the restored tree of " + job + " does not run as its owner " + owner
                            + ": pid " + pid + " thread " + task + " " + wrong.get() + "; killed it");
                }
            }
        }
        LOG.info(() -> node + ": restored tree of " + job + " runs as " + owner + " (" + pids.size() + " processes)");
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
