package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.mpirunft.common.rank.WarmSpareProcess;
import org.mpirunft.daemon.protocol.ControlReply.ProcessStatus;

/**
 * The node's agent: starts Open MPI's node daemon for a job, knows which processes on the node
 * belong to jobs, and kills them. The daemon is a child subreaper, so every job process (the
 * node daemon after it daemonized, the ranks it forked) stays its descendant; the job a process
 * belongs to is the {@code MPIRUN_FT_JOB} variable it inherited from the node daemon we started.
 */
public final class NodeAgent {
    public static final String JOB_VARIABLE = "MPIRUN_FT_JOB";
    /** Where the ranks of this node find the rank control channel; inherited from the node daemon we start. */
    public static final String RANK_SOCKET_VARIABLE = "MPIRUN_FT_RANK_SOCKET";
    private static final Logger LOG = Logger.getLogger(NodeAgent.class.getName());
    private static final Duration DAEMONIZE_WAIT = Duration.ofSeconds(10);
    /** Processes admitted to the rank channel. */
    private final Set<Long> onChannel = ConcurrentHashMap.newKeySet();

    private final String node;
    private final Path prted;
    private final Path logDirectory;
    private final boolean subreaper;
    /** PIDs the JVM started and therefore reaps itself; we must not reap those. */
    private final Set<Long> startedByJvm = ConcurrentHashMap.newKeySet();

    private final Path rankSocket;
    /** mpirun processes launchers started on this node, by PID, with their jobs (ControlRequest.LauncherStarted). */
    private final Map<Long, String> launchers = new ConcurrentHashMap<>();

    public NodeAgent(String node, Path prted, Path logDirectory, Path rankSocket) {
        this.rankSocket = rankSocket;
        this.node = node;
        this.prted = prted;
        this.logDirectory = logDirectory;
        this.subreaper = LinuxProcesses.becomeSubreaper();
        if (!subreaper) {
            LOG.warning(node + ": cannot become a child subreaper; daemonized job processes will not be tracked");
        }
    }

    /**
     * Starts Open MPI's node daemon for {@code job} and returns its PID once it is running (or has
     * daemonized, as PRRTE asks with {@code --daemonize}), with the variables PRRTE's prefix
     * assigns in front of the command set in its environment.
     *
     * @throws IllegalArgumentException when the command is not Open MPI's node daemon, or what
     *                                  comes before it is not PRRTE's prefix
     */
    public long launch(String job, List<String> words) {
        // The daemon's own environment is what prted inherits through the ProcessBuilder.
        NodeDaemonCommand command = NodeDaemonCommand.parse(words, prted, System.getenv());
        List<String> argv = command.argv();
        Path log = logDirectory.resolve("prted-" + (job.isEmpty() ? "nojob" : job) + "-" + Instant.now().toEpochMilli() + ".log");
        try {
            Files.createDirectories(logDirectory);
            ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            builder.environment().putAll(command.environment());
            builder.environment().put(JOB_VARIABLE, job);
            builder.environment().put(RANK_SOCKET_VARIABLE, rankSocket.toString());
            Process process = builder.start();
            startedByJvm.add(process.pid());
            process.onExit().thenRun(() -> startedByJvm.remove(process.pid()));
            LOG.info(() -> node + ": started node daemon for job '" + job + "', pid " + process.pid() + ", log " + log
                    + (command.environment().isEmpty() ? "" : ", environment from PRRTE's prefix " + command.environment()));
            // A daemonizing prted returns at once with 0; a failing one with non-zero.
            if (process.waitFor(DAEMONIZE_WAIT.toMillis(), TimeUnit.MILLISECONDS) && process.exitValue() != 0) {
                throw new IllegalStateException("node daemon exited with status " + process.exitValue() + " (see " + log + ")");
            }
            return process.pid();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + argv.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the node daemon", e);
        }
    }

    /** The job processes on this node (descendants of the daemon), zombies left out. */
    public List<ProcessStatus> processes() {
        reapAdopted();
        List<ProcessStatus> result = new ArrayList<>();
        ProcessHandle.current().descendants().forEach(handle -> {
            long pid = handle.pid();
            LinuxProcesses.stat(pid).filter(stat -> stat.state() != 'Z').ifPresent(stat -> result.add(
                    new ProcessStatus(pid, LinuxProcesses.commandName(pid), LinuxProcesses.environment(pid, JOB_VARIABLE).orElse(""))));
        });
        result.sort(Comparator.comparingLong(ProcessStatus::pid));
        return result;
    }

    /**
     * Why process {@code pid} of {@code user} cannot speak for {@code job} on the rank channel, or
     * empty if it can: it must be a live job process of this node (a descendant of this daemon)
     * tagged with {@code job}, and owned by {@code user}.
     */
    /**
     * {@code job}'s mpirun runs here as {@code pid}: the processes it starts itself on this node
     * (the ranks of its own node) are the job's. Forgotten when it exits.
     *
     * @throws IllegalArgumentException when no such process runs
     */
    public void launcherStarted(String job, long pid) {
        ProcessHandle mpirun = ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .orElseThrow(() -> new IllegalArgumentException("no process " + pid + " runs here"));
        launchers.put(pid, job);
        mpirun.onExit().thenRun(() -> launchers.remove(pid, job));
    }

    public Optional<String> rankRefusal(long pid, String user, String job) {
        Optional<ProcessHandle> process = ProcessHandle.of(pid);
        // The job is the one this daemon tagged the process's ancestor with when it started it
        // (Open MPI's node daemon), or the one a launcher registered the process's mpirun for:
        // a rank's own environment is the user's to set.
        long self = ProcessHandle.current().pid();
        Optional<ProcessHandle> started = process;
        Optional<String> launchedFor = started.map(p -> launchers.get(p.pid()));
        while (launchedFor.isEmpty() && started.isPresent() && started.get().parent().map(ProcessHandle::pid).orElse(self) != self) {
            started = started.get().parent();
            launchedFor = started.map(p -> launchers.get(p.pid()));
        }
        if (launchedFor.isPresent()) {
            if (!launchedFor.get().equals(job)) {
                return Optional.of("pid " + pid + " was started by job '" + launchedFor.get() + "''s mpirun, not '" + job + "''s");
            }
        } else if (process.isEmpty() || started.isEmpty() || started.get().parent().isEmpty()) {
            return Optional.of("pid " + pid + " is no job process of " + node);
        } else {
            String tag = LinuxProcesses.environment(started.get().pid(), JOB_VARIABLE).orElse("");
            if (!tag.equals(job)) {
                return Optional.of("pid " + pid + " belongs to job '" + tag + "', not '" + job + "'");
            }
        }
        Optional<String> owner = process.flatMap(p -> p.info().user());
        if (owner.isPresent() && !owner.get().equals(user)) {
            return Optional.of("pid " + pid + " is " + owner.get() + "'s, not the connecting user " + user + "'s");
        }
        // Admitted to the rank channel: a rank, also if it started as a warm spare (slotsInUse).
        onChannel.add(pid);
        return Optional.empty();
    }

    /**
     * Ranks running here: job processes other than Open MPI's node daemon, and other than idle
     * warm spares ({@link WarmSpareProcess}; idle until admitted to the rank channel). Counting
     * an idle spare kept its node busy in the view after its job ended (the load report lags the
     * exit), and a job launched right after found no free spare.
     */
    public int slotsInUse() {
        String daemonName = prted.getFileName().toString();
        onChannel.removeIf(pid -> ProcessHandle.of(pid).isEmpty());
        return (int) processes().stream().filter(p -> !p.command().equals(daemonName))
                .filter(p -> onChannel.contains(p.pid())
                        || !"1".equals(LinuxProcesses.environment(p.pid(), WarmSpareProcess.VARIABLE).orElse("")))
                .count();
    }

    /**
     * SIGKILLs the processes of {@code job} (of every job when empty), repeating while they fork,
     * and returns how many were killed.
     */
    public int kill(String job) {
        int killed = 0;
        for (int round = 0; round < 50; round++) {
            List<ProcessStatus> targets = processes().stream().filter(p -> job.isEmpty() || p.job().equals(job)).toList();
            if (targets.isEmpty()) {
                break;
            }
            for (ProcessStatus target : targets) {
                if (ProcessHandle.of(target.pid()).map(ProcessHandle::destroyForcibly).orElse(false)) {
                    killed++;
                }
            }
            sleepQuietly(Duration.ofMillis(20));
        }
        reapAdopted();
        int count = killed;
        LOG.info(() -> node + ": killed " + count + " process(es) of " + (job.isEmpty() ? "every job" : "job '" + job + "'"));
        return killed;
    }

    /** Adopted children (orphans of a node daemon) that exited must be reaped by us. */
    public void reapAdopted() {
        if (!subreaper) {
            return;
        }
        long self = ProcessHandle.current().pid();
        for (ProcessHandle child : ProcessHandle.current().children().toList()) {
            long pid = child.pid();
            if (!startedByJvm.contains(pid)) {
                LinuxProcesses.stat(pid).filter(stat -> stat.state() == 'Z' && stat.parent() == self)
                        .ifPresent(stat -> LinuxProcesses.reap(pid));
            }
        }
    }

    private static void sleepQuietly(Duration duration) {
        try {
            Thread.sleep(duration);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
