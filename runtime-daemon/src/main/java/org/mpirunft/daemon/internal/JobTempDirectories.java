package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.PrivateDirectories;

/**
 * The private temporary directory each Open MPI node daemon this node starts gets as its
 * {@code TMPDIR}, and passes on to its ranks. PRRTE names its session directory after a PID
 * ({@code /tmp/prted.PID}): a name any user can make first, which PRRTE then refuses to use, so
 * another user (or one's own job killed with its node) could keep a job from starting. A
 * directory made here has a name nobody can guess or make ahead (made at once, with a random
 * part, as {@code mktemp -d} makes one), is the owner's, mode 0700, and goes once the job has no
 * process left on this node.
 *
 * <p>It is made by the daemon (root) and then given to the owner: in the sticky {@code /tmp}
 * nobody else can rename or replace a root-owned directory meanwhile. It is removed by
 * {@code rm} running as the owner ({@link AsOwner}): the owner's processes could have put links
 * in it, which root must not follow.
 */
final class JobTempDirectories {
    private static final Logger LOG = Logger.getLogger(JobTempDirectories.class.getName());
    /** How long one removal may take before it is given up (and logged): a few files of Open MPI's. */
    private static final Duration REMOVE_BOUND = Duration.ofSeconds(10);

    /** One node daemon's directory and whose it is; the account is null for root. */
    private record Directory(Path path, JobOwner owner, Accounts.Account account) {
    }

    private final Path base;
    private final ProcessStarter starter;
    private final Map<String, List<Directory>> byJob = new ConcurrentHashMap<>();

    /** Starts one of the daemon's own processes ({@link NodeAgent#startOwn}). */
    interface ProcessStarter {
        Process start(ProcessBuilder builder) throws IOException;
    }

    /**
     * @param base    where the directories are made: the daemon's {@code java.io.tmpdir}, a node's
     *                {@code /tmp}
     * @param starter starts {@code rm} as one of the daemon's own processes
     */
    JobTempDirectories(Path base, ProcessStarter starter) {
        this.base = base;
        this.starter = starter;
    }

    /**
     * A new directory for a node daemon of {@code job}, {@code owner}'s (with {@code account}, null
     * for root), mode 0700.
     */
    Path create(String job, JobOwner owner, Accounts.Account account) throws IOException {
        Path directory = Files.createTempDirectory(base, prefix(job),
                PosixFilePermissions.asFileAttribute(PrivateDirectories.OWNER_ONLY));
        if (!owner.isRoot()) {
            try {
                Files.setAttribute(directory, "unix:gid", (int) account.gid(), LinkOption.NOFOLLOW_LINKS);
                Files.setAttribute(directory, "unix:uid", (int) account.uid(), LinkOption.NOFOLLOW_LINKS);
            } catch (IOException | RuntimeException e) {
                Files.deleteIfExists(directory);
                throw e;
            }
        }
        byJob.computeIfAbsent(job, j -> new java.util.concurrent.CopyOnWriteArrayList<>()).add(new Directory(directory, owner, account));
        return directory;
    }

    /**
     * Takes on the directories of {@code job} that are here already and {@code owner}'s: a
     * transparent restore unpacked them, from the node its tree was dumped on. They go with the
     * job, as those made here do.
     */
    void adopt(String job, JobOwner owner, Accounts.Account account) {
        String prefix = prefix(job);
        List<Directory> known = byJob.computeIfAbsent(job, j -> new java.util.concurrent.CopyOnWriteArrayList<>());
        try (java.util.stream.Stream<Path> entries = Files.list(base)) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (name.startsWith(prefix) && name.substring(prefix.length()).matches("\\d+")
                        && Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)
                        && ((Number) Files.getAttribute(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS)).longValue() == owner.uid()
                        && known.stream().noneMatch(d -> d.path().equals(entry))) {
                    known.add(new Directory(entry, owner, account));
                }
            }
        } catch (IOException e) {
            LOG.warning(() -> "cannot look for job " + job + "'s temporary directories in " + base + ": " + e.getMessage());
        }
    }

    private static String prefix(String job) {
        return "mpirun-ft-" + job.replaceAll("[^A-Za-z0-9._-]", "_") + "-";
    }

    /** Whether any directory is waiting for its job's end (so that callers can skip looking for it). */
    boolean isEmpty() {
        return byJob.isEmpty();
    }

    /** Removes the directories of every job but those in {@code running}, the jobs with a process left on this node. */
    void removeEnded(Set<String> running) {
        for (String job : List.copyOf(byJob.keySet())) {
            if (running.contains(job)) {
                continue;
            }
            List<Directory> directories = byJob.remove(job);
            if (directories != null) {
                directories.forEach(this::remove);
            }
        }
    }

    private void remove(Directory directory) {
        List<String> rm = List.of("rm", "-rf", "--one-file-system", "--", directory.path().toString());
        List<String> argv = directory.owner().isRoot() ? rm : AsOwner.command(directory.owner(), directory.account(), rm);
        try {
            Process process = starter.start(new ProcessBuilder(new ArrayList<>(argv)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD));
            if (!process.waitFor(REMOVE_BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                LOG.warning(() -> "removing " + directory.path() + " took over " + REMOVE_BOUND.toSeconds() + " s; left in place");
            } else if (process.exitValue() != 0 || Files.exists(directory.path(), LinkOption.NOFOLLOW_LINKS)) {
                LOG.warning(() -> "cannot remove " + directory.path() + " (rm exited with " + process.exitValue() + "); left in place");
            }
        } catch (IOException e) {
            LOG.warning(() -> "cannot remove " + directory.path() + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
