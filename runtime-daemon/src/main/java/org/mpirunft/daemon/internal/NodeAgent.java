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
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.rank.WarmSpareProcess;
import org.mpirunft.daemon.protocol.ControlReply.ProcessStatus;

/**
 * The node's agent: starts Open MPI's node daemon for a job, knows which processes on the node
 * belong to jobs, and kills them. The daemon is a child subreaper, so every job process (the
 * node daemon after it daemonized, the ranks it forked) stays its descendant; the job a process
 * belongs to is the {@code MPIRUN_FT_JOB} variable it inherited from the node daemon we started.
 * Inside a Slurm allocation the node daemon runs as a step of it instead ({@link SlurmStep}),
 * slurmstepd's child: it is then a root of its job's process tree known by PID, as an adopted
 * one is.
 *
 * <p>A daemon that stops leaves the job processes running, and so does one that restarts (an
 * upgrade) or crashes. It hands them to the next incarnation in a file ({@link HandoverFile}),
 * kept current as job processes start ({@link #keepHandoverIn}) and written once more as it stops
 * ({@link #handOver}): the roots of the job process trees, and the registered mpiruns, each with
 * its start time so that a reused PID is not taken for it. The next daemon adopts those that still run
 * ({@link #adopt}): their processes are the node's job processes again, admitted to the rank
 * channel ({@link RankAdmission}), counted, and killed when the node is fenced.
 *
 * <p>This class owns the set of process trees (what the JVM started, what it adopted, the Slurm
 * steps) and what starts, counts, kills and reaps them; the handover and the rank channel's
 * admission read that set through it.
 */
public final class NodeAgent {
    public static final String JOB_VARIABLE = "MPIRUN_FT_JOB";
    /** Where the ranks of this node find the rank control channel; inherited from the node daemon we start. */
    public static final String RANK_SOCKET_VARIABLE = "MPIRUN_FT_RANK_SOCKET";
    /** Set in the daemon's own processes ({@link #startOwn}: the health check) and their children: no job's. */
    static final String HEALTH_CHECK_VARIABLE = "MPIRUN_FT_HEALTH_CHECK";
    private static final Logger LOG = Logger.getLogger(NodeAgent.class.getName());
    private static final Duration DAEMONIZE_WAIT = Duration.ofSeconds(10);

    private final String node;
    private final Path prted;
    private final Path logDirectory;
    private final boolean subreaper;
    /** PIDs the JVM started and therefore reaps itself; we must not reap those. */
    private final Set<Long> startedByJvm = ConcurrentHashMap.newKeySet();

    private final Path rankSocket;
    /** mpirun processes launchers started on this node, by PID, with their jobs (ControlRequest.LauncherStarted). */
    private final Map<Long, String> launchers = new ConcurrentHashMap<>();
    /**
     * How long a rank may wait for its mpirun's registration. A launcher registers mpirun once it
     * started it, over the control socket; a rank that mpirun forked at once can say hello first.
     * Less than the rank's own wait for the welcome (10 s), so that a rank whose mpirun never
     * registers hears why it was refused rather than a timeout.
     */
    static final Duration REGISTRATION_WAIT = Duration.ofSeconds(5);
    /** Which processes speak for a job on the rank channel, and the ranks that wait for their mpirun's registration. */
    private final RankAdmission admission;
    /** What this daemon hands the next one on its node ({@link #keepHandoverIn}, {@link #handOver}, {@link #adopt}). */
    private final HandoverFile handover;
    /** Children whose exit status someone waits for (a restored mpirun), by PID. */
    private final Map<Long, java.util.function.IntConsumer> exitWatchers = new ConcurrentHashMap<>();
    /** Roots of job process trees an earlier daemon on this node handed over, by PID. */
    private final Set<Long> adopted = ConcurrentHashMap.newKeySet();
    /** Node daemons running as steps of a Slurm allocation ({@link SlurmStep}): roots of job process trees, by PID. */
    private final Set<Long> stepTasks = ConcurrentHashMap.newKeySet();
    /** The srun processes that hold those steps: job processes, but no rank. */
    private final Set<Long> sruns = ConcurrentHashMap.newKeySet();
    private static final Duration STEP_WAIT = Duration.ofSeconds(30);
    /** Each node daemon's own TMPDIR, removed once its job has no process left here. */
    private final JobTempDirectories temps = new JobTempDirectories(Path.of(System.getProperty("java.io.tmpdir")), this::startOwn);
    /** The variable a node daemon finds its temporary directory in (PRRTE's session directory goes there), as ranks do. */
    static final String TMPDIR_VARIABLE = "TMPDIR";

    public NodeAgent(String node, Path prted, Path logDirectory, Path rankSocket) {
        this(node, prted, logDirectory, rankSocket, REGISTRATION_WAIT);
    }

    /**
     * @param registrationWait how long a rank of an unregistered mpirun waits on the rank channel
     *                         for its launcher's registration ({@link #rankRefusal})
     */
    public NodeAgent(String node, Path prted, Path logDirectory, Path rankSocket, Duration registrationWait) {
        this.rankSocket = rankSocket;
        this.node = node;
        this.prted = prted;
        this.logDirectory = logDirectory;
        this.subreaper = LinuxProcesses.becomeSubreaper();
        if (!subreaper) {
            LOG.warning(node + ": cannot become a child subreaper; daemonized job processes will not be tracked");
        }
        this.admission = new RankAdmission(node, registrationWait, launchers, this::isForeignRoot);
        this.handover = new HandoverFile(node, this::handoverRoots, launchers);
    }

    /**
     * Starts Open MPI's node daemon for {@code job} as {@code owner} ({@link AsOwner}) and returns
     * its PID once it is running (or has daemonized, as PRRTE asks with {@code --daemonize}), with
     * the variables PRRTE's prefix assigns in front of the command set in its environment. Without
     * {@code rankChannel} the node daemon (and so its ranks) is not told the rank channel's
     * socket: a transparent job's ranks must hold no connection to this daemon, which CRIU could
     * not dump.
     *
     * @throws IllegalArgumentException when the command is not Open MPI's node daemon, what comes
     *                                  before it is not PRRTE's prefix, or the owner is unknown here
     */
    public long launch(String job, List<String> words, boolean rankChannel, JobOwner owner) {
        return launch(job, words, rankChannel, owner, "");
    }

    /**
     * As above; with a {@code slurmJob}, the node daemon runs as a step of that Slurm allocation
     * on this node ({@link SlurmStep}), started by srun as {@code owner}, and its PID is the
     * step's task's.
     */
    public long launch(String job, List<String> words, boolean rankChannel, JobOwner owner, String slurmJob) {
        // The daemon's own environment is what the prefix's $LD_LIBRARY_PATH and the like expand against.
        NodeDaemonCommand command = NodeDaemonCommand.parse(words, prted, System.getenv());
        Map<String, String> jobVariables = new java.util.HashMap<>(command.environment());
        jobVariables.put(JOB_VARIABLE, job);
        if (rankChannel) {
            jobVariables.put(RANK_SOCKET_VARIABLE, rankSocket.toString());
        }
        SlurmStep step = slurmJob.isEmpty() ? null : SlurmStep.of(slurmJob);
        if (step != null) {
            jobVariables.put(SlurmStep.TOKEN_VARIABLE, step.token());
            // srun finds the allocation's controller through the site's Slurm config.
            Optional.ofNullable(System.getenv("SLURM_CONF")).ifPresent(conf -> jobVariables.put("SLURM_CONF", conf));
        }
        List<String> argv = step == null ? command.argv() : step.srunArgv(node, command.argv());
        Accounts.Account account = owner.isRoot() ? null : AsOwner.account(owner, node);
        try {
            jobVariables.put(TMPDIR_VARIABLE, temps.create(job, owner, account).toString());
        } catch (IOException e) {
            throw new IllegalStateException("cannot make a temporary directory for the node daemon of job '" + job + "': " + e.getMessage(), e);
        }
        Path log = logDirectory.resolve("prted-" + (job.isEmpty() ? "nojob" : job) + "-" + Instant.now().toEpochMilli() + ".log");
        try {
            Files.createDirectories(logDirectory);
            ProcessBuilder builder = new ProcessBuilder(argv).redirectErrorStream(true).redirectOutput(log.toFile());
            builder.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            if (owner.isRoot()) {
                builder.environment().putAll(jobVariables);
                if (!rankChannel) {
                    builder.environment().remove(RANK_SOCKET_VARIABLE);
                }
            } else {
                builder.command(AsOwner.command(owner, account, argv));
                builder.directory(Files.isDirectory(Path.of(account.home())) ? Path.of(account.home()).toFile() : new java.io.File("/"));
                Map<String, String> environment = AsOwner.environment(account, System.getenv(), jobVariables);
                builder.environment().clear();
                builder.environment().putAll(environment);
            }
            Process process = builder.start();
            startedByJvm.add(process.pid());
            // A node daemon that did not daemonize (or could not start) ends here: its directory may go.
            process.onExit().thenRun(() -> {
                startedByJvm.remove(process.pid());
                removeEndedTemps();
            });
            LOG.info(() -> node + ": started node daemon for job '" + job + "' as " + owner + ", pid " + process.pid() + ", log " + log
                    + (step == null ? "" : ", as a step of Slurm job " + slurmJob + " (srun)")
                    + (command.environment().isEmpty() ? "" : ", environment from PRRTE's prefix " + command.environment()));
            if (step != null) {
                return awaitStep(step, process, log);
            }
            // A daemonizing prted returns at once with 0; a failing one with non-zero.
            if (process.waitFor(DAEMONIZE_WAIT.toMillis(), TimeUnit.MILLISECONDS) && process.exitValue() != 0) {
                throw new IllegalStateException("node daemon exited with status " + process.exitValue() + " (see " + log + ")");
            }
            // Daemonized, it is our child now (we are its subreaper): a root the next daemon must know.
            refreshHandover();
            return process.pid();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + argv.getFirst() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the node daemon", e);
        }
    }

    /** The step's node daemon, once slurmstepd started it; srun's failure or a bounded wait otherwise. */
    private long awaitStep(SlurmStep step, Process srun, Path log) {
        sruns.add(srun.pid());
        srun.onExit().thenRun(() -> {
            sruns.remove(srun.pid());
            removeEndedTemps();
        });
        Optional<Long> task = step.awaitTask(srun, STEP_WAIT);
        if (task.isEmpty()) {
            String why = srun.isAlive()
                    ? "Slurm started no step for the node daemon within " + STEP_WAIT.toSeconds() + " s"
                    : "srun exited with status " + srun.exitValue() + " before the node daemon's step started";
            srun.destroyForcibly();
            throw new IllegalStateException(why + " (see " + log + ")");
        }
        stepTasks.add(task.get());
        refreshHandover();
        LOG.info(() -> node + ": node daemon runs as pid " + task.get() + " in a step of Slurm job " + step.slurmJob() + ", srun pid " + srun.pid());
        return task.get();
    }

    /** Roots of job process trees that are not this daemon's descendants: adopted ones, and node daemons in Slurm steps. */
    private java.util.stream.Stream<Long> foreignRoots() {
        adopted.removeIf(pid -> ProcessHandle.of(pid).isEmpty());
        stepTasks.removeIf(pid -> ProcessHandle.of(pid).isEmpty());
        return java.util.stream.Stream.concat(adopted.stream(), stepTasks.stream());
    }

    private boolean isForeignRoot(long pid) {
        return adopted.contains(pid) || stepTasks.contains(pid);
    }

    /**
     * Starts one of the daemon's own processes (its health check): the JVM reaps it, so this
     * agent's reaping of orphans leaves it alone.
     */
    Process startOwn(ProcessBuilder builder) throws IOException {
        builder.environment().put(HEALTH_CHECK_VARIABLE, "1");
        Process process = builder.start();
        startedByJvm.add(process.pid());
        process.onExit().thenRun(() -> startedByJvm.remove(process.pid()));
        return process;
    }

    /**
     * The job processes on this node (descendants of the daemon, and the process trees it adopted),
     * zombies and the daemon's own health check left out.
     */
    public List<ProcessStatus> processes() {
        reapAdopted();
        return scan();
    }

    private List<ProcessStatus> scan() {
        List<ProcessStatus> result = new ArrayList<>();
        jobProcesses().forEach(handle -> {
            long pid = handle.pid();
            if (LinuxProcesses.environment(pid, HEALTH_CHECK_VARIABLE).isPresent()) {
                return;
            }
            LinuxProcesses.stat(pid).filter(stat -> stat.state() != 'Z').ifPresent(stat -> result.add(
                    new ProcessStatus(pid, LinuxProcesses.commandName(pid), LinuxProcesses.environment(pid, JOB_VARIABLE).orElse(""))));
        });
        result.sort(Comparator.comparingLong(ProcessStatus::pid));
        return result;
    }

    private java.util.stream.Stream<ProcessHandle> jobProcesses() {
        java.util.stream.Stream<ProcessHandle> roots = foreignRoots().map(ProcessHandle::of).flatMap(Optional::stream);
        return java.util.stream.Stream.concat(ProcessHandle.current().descendants(),
                roots.flatMap(root -> java.util.stream.Stream.concat(java.util.stream.Stream.of(root), root.descendants())));
    }

    /**
     * Writes what the next daemon on this node adopts: the job process trees this daemon leaves
     * running, and the registered mpiruns ({@link HandoverFile#handOver}). Called as the daemon
     * stops; a file that cannot be written is logged, and the next daemon then does not know
     * those processes.
     */
    public void handOver(Path file) {
        handover.handOver(file);
    }

    /**
     * From now on the handover in {@code file} is kept current: rewritten as job processes start
     * here ({@link #launch}, {@link #launcherStarted}) and, for what else changes (a restored tree,
     * trees that ended), on each {@link #refreshHandover}. So a daemon that crashed, which writes
     * nothing as it goes, leaves its successor what it ran as well as one that stopped cleanly.
     */
    public void keepHandoverIn(Path file) {
        handover.keepIn(file);
    }

    /** Rewrites the kept handover if what it says changed; nothing before {@link #keepHandoverIn}. */
    public void refreshHandover() {
        handover.refresh();
    }

    /**
     * The roots of the job process trees this daemon would leave running now: its live children
     * (not a zombie, an orphan waiting for {@link #reapAdopted}, nor the daemon's own health
     * check) and the trees it adopted or that run as Slurm steps.
     */
    private java.util.stream.Stream<ProcessHandle> handoverRoots() {
        List<ProcessHandle> children = ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(child -> LinuxProcesses.stat(child.pid()).map(stat -> stat.state() != 'Z').orElse(false))
                .filter(child -> LinuxProcesses.environment(child.pid(), HEALTH_CHECK_VARIABLE).isEmpty()).toList();
        return java.util.stream.Stream.concat(children.stream(),
                foreignRoots().map(ProcessHandle::of).flatMap(Optional::stream).filter(ProcessHandle::isAlive));
    }

    /**
     * Adopts what the previous daemon on this node handed over in {@code file}, and removes the
     * file: the processes that still run with the same start time. A malformed file is logged and
     * ignored.
     */
    public void adopt(Path file) {
        handover.adopt(file, adopted::add, this::launcherStarted);
    }

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
        admission.registered();
        refreshHandover();
    }

    /** {@code job}'s registered mpirun on this node, if it runs here. */
    public Optional<Long> launcherOf(String job) {
        return launchers.entrySet().stream().filter(e -> e.getValue().equals(job)).map(Map.Entry::getKey)
                .filter(pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).findFirst();
    }

    /** The roots of {@code job}'s process trees that this agent started or adopted here: job processes whose parent is none of the job's. */
    public List<Long> jobRoots(String job) {
        Set<Long> ofJob = new java.util.HashSet<>();
        processes().stream().filter(p -> p.job().equals(job)).forEach(p -> ofJob.add(p.pid()));
        return ofJob.stream().filter(pid -> LinuxProcesses.stat(pid).map(stat -> !ofJob.contains(stat.parent())).orElse(false))
                .sorted().toList();
    }

    /**
     * Why process {@code pid} of {@code user} cannot speak for {@code job} on the rank channel, or
     * empty if it can: it must be a live job process of this node, a descendant of a node daemon
     * this daemon started (or adopted) for {@code job} or of {@code job}'s registered mpirun, and
     * owned by {@code user}. A rank of an mpirun not registered yet waits for its registration, up
     * to the registration wait ({@link RankAdmission#rankRefusal}).
     */
    public Optional<String> rankRefusal(long pid, String user, String job) {
        return admission.rankRefusal(pid, user, job);
    }

    /**
     * The process {@code pid}, admitted to the rank channel, is an idle warm spare: it waits on
     * the channel for its call and takes no slot until it took a rank (then it says hello again,
     * as that rank, and is admitted as one).
     */
    void idleSpare(long pid) {
        admission.idleSpare(pid);
    }

    /**
     * Ranks running here: job processes other than Open MPI's node daemon, and other than idle
     * warm spares ({@link WarmSpareProcess}; idle until admitted to the rank channel). Counting
     * an idle spare kept its node busy in the view after its job ended (the load report lags the
     * exit), and a job launched right after found no free spare.
     */
    public int slotsInUse() {
        String daemonName = prted.getFileName().toString();
        admission.forgetEnded();
        return (int) processes().stream().filter(p -> !p.command().equals(daemonName) && !sruns.contains(p.pid()))
                .filter(p -> admission.onChannel(p.pid())
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

    /**
     * Calls {@code onExit} with the exit status of {@code pid}, a child of this daemon that the
     * JVM did not start (a process CRIU restored, reparented to us), when it is reaped.
     */
    public void watchExit(long pid, java.util.function.IntConsumer onExit) {
        exitWatchers.put(pid, onExit);
    }

    /** No longer tells anyone of {@code pid}'s exit (it is being killed on purpose). */
    public void unwatch(long pid) {
        exitWatchers.remove(pid);
    }

    /** Adopted children (orphans of a node daemon) that exited must be reaped by us. */
    public void reapAdopted() {
        if (!subreaper) {
            return;
        }
        long self = ProcessHandle.current().pid();
        boolean reaped = false;
        for (ProcessHandle child : ProcessHandle.current().children().toList()) {
            long pid = child.pid();
            if (!startedByJvm.contains(pid)
                    && LinuxProcesses.stat(pid).filter(stat -> stat.state() == 'Z' && stat.parent() == self).isPresent()) {
                java.util.function.IntConsumer watcher = exitWatchers.remove(pid);
                if (watcher == null) {
                    LinuxProcesses.reap(pid);
                } else {
                    LinuxProcesses.reapStatus(pid).ifPresent(watcher);
                }
                reaped = true;
            }
        }
        if (reaped) {
            removeEndedTemps();
        }
    }

    /** The temporary directories of {@code job} that a transparent restore unpacked here go with the job too. */
    void adoptTemps(String job, JobOwner owner) {
        temps.adopt(job, owner, owner.isRoot() ? null : AsOwner.account(owner, node));
    }

    /** Once a job process ended: the temporary directories of jobs with no process left here go. */
    private void removeEndedTemps() {
        if (!temps.isEmpty()) {
            temps.removeEnded(scan().stream().map(ProcessStatus::job).collect(java.util.stream.Collectors.toSet()));
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
