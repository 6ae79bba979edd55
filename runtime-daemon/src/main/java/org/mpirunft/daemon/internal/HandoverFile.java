package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.function.ObjLongConsumer;
import java.util.function.Supplier;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.mpirunft.common.JsonLines;

/**
 * What a daemon hands the next one on its node, in a file of the state directory
 * ({@code handover.json}): the roots of the job process trees it leaves running and the
 * registered mpiruns, each with its start time so that a reused PID is not taken for it. Kept
 * current as job processes start and on the daemon's timer ({@link #keepIn}, {@link #refresh}),
 * so a daemon that crashed leaves as much as one that stopped ({@link #handOver}); read, and
 * removed, by the next daemon, which adopts what still runs ({@link #adopt}).
 */
final class HandoverFile {
    private static final Logger LOG = Logger.getLogger(HandoverFile.class.getName());

    /**
     * What a daemon hands the next one on its node: the job processes it leaves running.
     *
     * @param roots     the roots of the job process trees (the daemonized node daemons)
     * @param launchers registered mpirun processes, with their jobs
     */
    record Handover(int version, List<Process> roots, List<Launcher> launchers) {
        static final int VERSION = 1;

        Handover {
            roots = List.copyOf(roots);
            launchers = List.copyOf(launchers);
        }

        /** A process, with its start time: a PID reused by another process does not match. */
        record Process(long pid, long startMillis) {
        }

        record Launcher(long pid, long startMillis, String job) {
        }
    }

    private final String node;
    /** The roots of the job process trees this daemon would leave running now (the agent's). */
    private final Supplier<Stream<ProcessHandle>> roots;
    /** The registered mpiruns, by PID, with their jobs (the agent's, read here). */
    private final Map<Long, String> launchers;
    /** Where the handover is kept current ({@link #keepIn}), and what it said last. */
    private volatile Path file;
    /**
     * Guarded by this object's monitor, which is held over every write: a refresh on the timer
     * must not write an older state after {@link #handOver}. It was the agent's monitor while
     * the handover was the agent's; nothing else ever took that monitor, so the lock moved here
     * with the state it guards.
     */
    private Handover written;

    HandoverFile(String node, Supplier<Stream<ProcessHandle>> roots, Map<Long, String> launchers) {
        this.node = node;
        this.roots = roots;
        this.launchers = launchers;
    }

    /**
     * Writes what the next daemon on this node adopts: the job process trees this daemon leaves
     * running, and the registered mpiruns. Called as the daemon stops; a file that cannot be
     * written is logged, and the next daemon then does not know those processes.
     */
    synchronized void handOver(Path file) {
        // Under the same lock as refresh: a refresh on the timer must not write an older state after this.
        write(file, handover());
    }

    /** From now on the handover in {@code file} is kept current ({@link #refresh}). */
    void keepIn(Path file) {
        this.file = file;
        refresh();
    }

    /** Rewrites the kept handover if what it says changed; nothing before {@link #keepIn}. */
    void refresh() {
        Path file = this.file;
        if (file == null) {
            return;
        }
        synchronized (this) {
            Handover now = handover();
            if (!now.equals(written)) {
                write(file, now);
                written = now;
            }
        }
    }

    private Handover handover() {
        List<Handover.Process> roots = new ArrayList<>();
        this.roots.get().forEach(root -> roots.add(describe(root)));
        List<Handover.Launcher> registered = new ArrayList<>();
        launchers.forEach((pid, job) -> ProcessHandle.of(pid).filter(ProcessHandle::isAlive).ifPresent(mpirun -> {
            Handover.Process p = describe(mpirun);
            registered.add(new Handover.Launcher(p.pid(), p.startMillis(), job));
        }));
        roots.removeIf(root -> root.startMillis() < 0);
        registered.removeIf(launcher -> launcher.startMillis() < 0);
        roots.sort(Comparator.comparingLong(Handover.Process::pid));
        registered.sort(Comparator.comparingLong(Handover.Launcher::pid));
        return new Handover(Handover.VERSION, roots, registered);
    }

    /** Writes {@code handover} to {@code file} whole (a new file renamed over the old), or removes the file when it says nothing. */
    private void write(Path file, Handover handover) {
        try {
            if (handover.roots().isEmpty() && handover.launchers().isEmpty()) {
                Files.deleteIfExists(file);
                return;
            }
            Files.createDirectories(file.getParent());
            Path partial = file.resolveSibling(file.getFileName() + ".partial");
            Files.writeString(partial, JsonLines.encode(handover) + "\n");
            Files.move(partial, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            LOG.fine(() -> node + ": " + handover.roots().size() + " job process tree(s) and " + handover.launchers().size()
                    + " mpirun(s) for the next daemon in " + file);
        } catch (IOException e) {
            LOG.warning(node + ": cannot hand the job processes over in " + file + ": " + e.getMessage()
                    + "; the next daemon will not know them");
        }
    }

    /**
     * Adopts what the previous daemon on this node handed over in {@code file}, and removes the
     * file: the processes that still run with the same start time, each root given to
     * {@code root} and each mpirun to {@code launcher} (with its job). A malformed file is logged
     * and ignored.
     */
    void adopt(Path file, LongConsumer root, ObjLongConsumer<String> launcher) {
        if (!Files.exists(file)) {
            return;
        }
        try {
            Handover handover = JsonLines.decode(Files.readString(file).strip(), Handover.class);
            if (handover.version() != Handover.VERSION) {
                LOG.warning(() -> node + ": ignoring " + file + ": handover version " + handover.version() + ", expected " + Handover.VERSION);
                return;
            }
            int[] counts = new int[2];
            for (Handover.Process process : handover.roots()) {
                if (stillRuns(process.pid(), process.startMillis())) {
                    root.accept(process.pid());
                    counts[0]++;
                }
            }
            for (Handover.Launcher mpirun : handover.launchers()) {
                if (stillRuns(mpirun.pid(), mpirun.startMillis())) {
                    launcher.accept(mpirun.job(), mpirun.pid());
                    counts[1]++;
                }
            }
            LOG.info(() -> node + ": adopted " + counts[0] + " job process tree(s) and " + counts[1]
                    + " mpirun(s) of the previous daemon");
        } catch (IOException | JsonLines.MalformedMessageException | IllegalArgumentException e) {
            LOG.warning(node + ": ignoring the previous daemon's handover " + file + ": " + e.getMessage());
        } finally {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.warning(node + ": cannot remove " + file + ": " + e.getMessage());
            }
        }
    }

    private static Handover.Process describe(ProcessHandle process) {
        return new Handover.Process(process.pid(), process.info().startInstant().map(java.time.Instant::toEpochMilli).orElse(-1L));
    }

    private static boolean stillRuns(long pid, long startMillis) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .flatMap(p -> p.info().startInstant()).map(java.time.Instant::toEpochMilli).filter(start -> start == startMillis)
                .isPresent();
    }
}
