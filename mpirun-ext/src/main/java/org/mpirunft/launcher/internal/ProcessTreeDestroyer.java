package org.mpirunft.launcher.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.apache.commons.exec.ProcessDestroyer;

/**
 * Commons Exec's process destroyer for mpirun: it keeps the process it is given, stops its whole
 * tree on request ({@link #terminate}: SIGTERM to mpirun, so it tears its job down in order;
 * after a grace period SIGKILL to mpirun and every process below it), and does the same from a
 * shutdown hook when the launcher itself is stopped. Node daemons that the launch agent started
 * on other nodes are not below mpirun: the node daemons kill those ({@code killJob}).
 */
public final class ProcessTreeDestroyer implements ProcessDestroyer {
    private static final Logger LOG = Logger.getLogger(ProcessTreeDestroyer.class.getName());

    private final Duration grace;
    /** Guarded by this. */
    private final List<Process> processes = new ArrayList<>();
    /** Guarded by this. */
    private Thread hook;
    /** Guarded by this. Set when a stop was asked for before the process had started. */
    private boolean stopOnStart;
    /** The first process's PID, once Commons Exec started it. */
    private final CompletableFuture<Long> started = new CompletableFuture<>();

    public ProcessTreeDestroyer(Duration grace) {
        this.grace = grace;
    }

    @Override
    public synchronized boolean add(Process process) {
        if (stopOnStart) {
            Thread.ofPlatform().name("mpirun-ft-stop").daemon().start(() -> terminate(process, grace));
        }
        if (hook == null) {
            hook = new Thread(this::terminateAll, "mpirun-ft-destroyer");
            try {
                Runtime.getRuntime().addShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                terminate(process, grace);
                return false;
            }
        }
        started.complete(process.pid());
        return processes.add(process);
    }

    /** The PID of the process Commons Exec started, once it has. */
    public CompletableFuture<Long> started() {
        return started;
    }

    @Override
    public synchronized boolean remove(Process process) {
        boolean removed = processes.remove(process);
        if (processes.isEmpty() && hook != null) {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or about to: nothing to undo.
            }
            hook = null;
        }
        return removed;
    }

    @Override
    public synchronized int size() {
        return processes.size();
    }

    /** The process Commons Exec started, if it is running. */
    public synchronized Process process() {
        return processes.isEmpty() ? null : processes.getFirst();
    }

    /**
     * Stops the process tree in the background ({@link #terminate}); a process that has not
     * started yet is stopped as soon as it starts.
     */
    public synchronized void stopInBackground() {
        Process process = process();
        if (process == null) {
            stopOnStart = true;
            return;
        }
        Thread.ofPlatform().name("mpirun-ft-stop").daemon().start(() -> terminate(process, grace));
    }

    private void terminateAll() {
        List<Process> all;
        synchronized (this) {
            all = List.copyOf(processes);
        }
        for (Process process : all) {
            terminate(process, grace);
        }
    }

    /**
     * SIGTERM to {@code process}, then, if it is still there after {@code grace}, SIGKILL to it
     * and to every process that was below it at either moment (orphans are re-parented once
     * their parent dies, so the tree is read before). Returns once the process is gone.
     *
     * <p>Signals go through the process's handle: {@link Process#destroy} would also close our
     * ends of its pipes at once, and what mpirun says as it goes down (PRRTE names the node
     * daemons it loses) would be lost, and its writes fail, in the middle of its teardown.
     */
    public static void terminate(Process process, Duration grace) {
        Set<ProcessHandle> tree = new LinkedHashSet<>(process.descendants().toList());
        process.toHandle().destroy();
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warning(() -> "mpirun-ft: mpirun (pid " + process.pid() + ") still runs " + grace.toMillis() + " ms after SIGTERM; killing it");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        tree.addAll(process.descendants().toList());
        process.toHandle().destroyForcibly();
        for (ProcessHandle child : tree) {
            if (child.isAlive()) {
                child.destroyForcibly();
            }
        }
        try {
            process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
