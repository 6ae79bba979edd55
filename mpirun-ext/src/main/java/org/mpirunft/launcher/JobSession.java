package org.mpirunft.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.launcher.internal.FifoOutput;
import org.mpirunft.launcher.internal.LineDropFilter;
import org.mpirunft.launcher.internal.LineTeeOutputStream;
import org.mpirunft.scheduler.RecoveryMode;

/**
 * One job from launch to exit: what {@code mpirun-ft [options] PROGRAM} does. mpirun-ft decides
 * nothing about failures: the scheduler's state machine does, and mpirun-ft carries out what
 * only it can (mpirun's process tree is its child).
 *
 * <ol>
 *   <li>Checks the checkpoint directory, plans hosts and spares ({@link HostPlanner}) from the
 *       daemons' view, registers the job with its rank-to-node table, spares, recovery mode and
 *       checkpoint schedule.</li>
 *   <li>Follows the job's transitions through its daemon ({@link JobFollower}): each goes to the
 *       event log; a restart, a stop and the program's end are carried out here.</li>
 *   <li>Runs mpirun ({@link JobRunner}, {@link MpirunCommand}), one {@link Attempt} per launch.
 *       Open MPI's own reports of a lost rank or node daemon, which exist only as mpirun's output,
 *       are passed on to the scheduler as failure reports ({@link OpenMpiReports}): one source
 *       among three.</li>
 *   <li>When mpirun is gone: follows the restored mpiruns in transparent mode
 *       ({@link RestoredLaunchers}); relaunches on the scheduler's plan if it decided a restart,
 *       or asks for a decision if mpirun ended before the program finished with a failure about
 *       ({@link DecisionWait}), else reports the outcome ({@code jobFinished},
 *       {@link OutcomeJudge}) and returns it.</li>
 * </ol>
 * Threads ({@link SessionThreads}): the caller's runs the attempts; one scheduled thread
 * ({@code events}) takes the daemon's events and mpirun's signals in order; a subscriber thread
 * reads the daemon's stream; reports to the daemon go out on virtual threads, so a slow daemon
 * never holds the events up; Commons Exec's pumps read mpirun's output. While the job runs and
 * nothing fails, mpirun-ft only waits. Every wait is listed with its bound in
 * mpirun-ext/README.md, "Waits".
 */
public final class JobSession {
    private static final Logger LOG = Logger.getLogger(JobSession.class.getName());
    /** How long the node daemons of a full restart get to leave and join again. */
    private static final Duration RUNTIME_RESTART_BOUND = Duration.ofSeconds(90);

    private final LaunchSettings settings;
    private final DaemonClient daemon;
    private final OutputStream out;
    private final OutputStream err;
    private final InputStream in;
    private final Clock clock;
    private final JobOutputClassifier classifier;
    private final String agent;

    private final SessionThreads threads;
    /** Set once the end is reported, by the run or by the interrupt hook. */
    private final AtomicBoolean finished = new AtomicBoolean();
    /** The attempt running now; set by the caller's thread, read by the events thread. */
    private final AtomicReference<Attempt> current = new AtomicReference<>();
    /** What the follower asks of the session; called on the events thread. */
    private final JobFollower.Actions actions = new Decisions();
    private final OpenMpiReports openMpiReports;
    private final DecisionWait decisions;
    private final RestoredLaunchers restoredLaunchers;

    /** What every attempt of the job launches with, fixed once the job is registered. */
    private record Launch(EventLog log, JobFollower follower, Map<String, String> mpirunEnvironment,
                          Optional<RankAotCache> aot, RankLibraryProgram.Verdict rankLibrary) {
    }

    /**
     * @param agent the launch agent command ({@link LaunchAgent#resolve})
     * @param in    forwarded to mpirun's stdin (rank 0's), or null for none
     */
    public JobSession(LaunchSettings settings, DaemonClient daemon, String agent, OutputStream out, OutputStream err,
                      InputStream in, Clock clock, JobOutputClassifier classifier) {
        this.settings = settings;
        this.daemon = daemon;
        this.agent = agent;
        this.out = out;
        this.err = err;
        this.in = in;
        this.clock = clock;
        this.classifier = classifier;
        this.threads = new SessionThreads(settings.job());
        this.openMpiReports = new OpenMpiReports(settings, daemon, threads, current::get, actions);
        this.decisions = new DecisionWait(settings, daemon, threads);
        this.restoredLaunchers = new RestoredLaunchers(settings, daemon, threads);
    }

    /**
     * Why a relaunch of this job would start from its first iteration, if it would: a relaunch
     * (the restart modes, and a pause's fallback) reads its epochs from shared storage, the only
     * level a new set of processes finds; partner copies die with the ranks, and node-local parts
     * are listed in no manifest a relaunch reads.
     */
    static java.util.Optional<String> relaunchWarning(LaunchSettings settings) {
        if (settings.checkpointLevels().uses(org.mpirunft.bridge.storage.StorageLevels.Level.SHARED)) {
            return java.util.Optional.empty();
        }
        String relaunch = settings.recovery() == RecoveryMode.PAUSE ? "a relaunch (a pause's fallback)"
                : "a relaunch (--recovery " + settings.recovery().word() + ")";
        return java.util.Optional.of("--checkpoint-levels " + settings.checkpointLevels().render() + " puts nothing on shared storage, so "
                + relaunch + " would start the job from its first iteration");
    }

    /**
     * Runs the job to its end; returns its outcome.
     *
     * @throws CheckpointDirectoryException, NoSpareLeftException, BadSettingException,
     *         InstallationException, DaemonException (unreachable, refused): before or between runs
     */
    public JobOutcome run() {
        String job = settings.job();
        long started = System.nanoTime();
        checkWritable(settings.checkpointDir(), job);
        ControlReply.StatusReport status = daemon.status();
        if (status.fenced()) {
            throw new DaemonClient.RequestFailedException(ErrorCode.FENCED, "the local daemon on " + status.node()
                    + " is fenced (expelled from the group) and takes no new jobs");
        }
        // mpirun starts the ranks of its own node itself: they find the local daemon through
        // mpirun's environment, as the others do through their node daemon's (NodeAgent).
        Map<String, String> mpirunEnvironment = new java.util.HashMap<>(Map.of(RankEnvironment.JOB, job));
        if (!status.rankSocket().isEmpty() && settings.recovery() != RecoveryMode.TRANSPARENT) {
            mpirunEnvironment.put(RankEnvironment.RANK_SOCKET, status.rankSocket());
        }
        // Inside a Slurm allocation the launch agent has the node daemons started as its steps; a
        // transparent job's stay the daemons' children, which CRIU dumps and restores.
        if (!settings.slurmJob().isEmpty() && settings.recovery() != RecoveryMode.TRANSPARENT) {
            mpirunEnvironment.put(RankEnvironment.SLURM_JOB, settings.slurmJob());
        }
        HostPlan plan = HostPlanner.plan(settings.hosts(), settings.ranks(), settings.spares(), settings.sparesExplicit(),
                settings.mapping(), status.members(), settings.hostsAreAllocation());
        relaunchWarning(settings).ifPresent(warning -> LOG.warning(() -> "mpirun-ft: " + warning));
        EventLog log = EventLog.open(settings.eventLog(), job, clock);
        RestartController restarts = new RestartController(job, daemon, log, System::nanoTime);
        JobFollower follower = new JobFollower(job, plan.rankNodes(), settings.recovery(), log, actions, System::nanoTime);
        JobOutcome outcome = null;
        boolean registered = false;
        RuntimeException failure = null;
        Thread interruptHook = Thread.ofPlatform().name("mpirun-ft-interrupted").unstarted(() -> interrupted(log, started));
        Runtime.getRuntime().addShutdownHook(interruptHook);
        MpirunTempDirectory mpirunTemp = null;
        try {
            mpirunTemp = MpirunTempDirectory.create(job, System.getenv());
            mpirunEnvironment.put(MpirunTempDirectory.VARIABLE, mpirunTemp.path().toString());
            if (settings.recovery() == RecoveryMode.TRANSPARENT) {
                // Its images go to the job's checkpoint directory, beside its event log.
                daemon.registerJob(job, plan.rankNodes(), plan.spareNames(), settings.recovery().word(),
                        settings.checkpointSchedule().map(Object::toString).orElse(""), settings.maxRestarts(),
                        settings.checkpointDir().toString());
            } else {
                daemon.registerJob(job, plan.rankNodes(), plan.spareNames(), settings.recovery().word(),
                        settings.checkpointSchedule().map(Object::toString).orElse(""), settings.maxRestarts());
            }
            registered = true;
            // Current before the subscription: a decision that comes at once (a stop right after the
            // registration) must find the attempt it is for, or it would be dropped.
            Attempt attempt = new Attempt(1, plan);
            current.set(attempt);
            threads.subscribe(daemon, follower, exitStatus -> {
                Attempt now = current.get();
                if (now != null) {
                    now.launcherNews.add(new Attempt.LauncherExit(exitStatus));
                }
            });
            // A transparent job's program need not be a rank library program, which is what trains an AOT cache.
            Optional<RankAotCache> aot = settings.aotCache() && settings.recovery() != RecoveryMode.TRANSPARENT
                    ? Optional.of(RankAotCache.of(settings.checkpointDir(), settings.program(), Paths.get("").toAbsolutePath(),
                            System.getenv("PATH")))
                    : Optional.empty();
            // Warm spares are ranks of the program's world: a program gets them only if its rank library hides them.
            RankLibraryProgram.Verdict rankLibrary = RankLibraryProgram.verdict(settings, plan, Paths.get("").toAbsolutePath(),
                    System.getenv());
            Launch launch = new Launch(log, follower, mpirunEnvironment, aot, rankLibrary);
            Attempt previous = null;
            int previousCode = 0;
            while (true) {
                current.set(attempt);
                JobFollower.Stop stoppedMeanwhile = previous == null ? null : previous.stop.get();
                if (stoppedMeanwhile != null) {
                    // The scheduler stopped the job after the relaunch was decided, before this
                    // attempt became the current one: its stop reached the previous attempt.
                    attempt.stop.compareAndSet(null, stoppedMeanwhile);
                }
                if (attempt.stop.get() != null) {
                    // A stop is the newest decision; nothing is launched.
                    outcome = OutcomeJudge.judge(settings, attempt, follower, previousCode);
                    break;
                }
                int code = runAttempt(attempt, launch);
                Attempt.Relaunch relaunch = decisions.afterExit(attempt, follower, code);
                if (relaunch == null) {
                    outcome = OutcomeJudge.judge(settings, attempt, follower, code);
                    break;
                }
                HostPlan next = restarts.relaunchPlan(attempt.plan, relaunch.rankNodes(), relaunch.lostNodes());
                log.append(new LauncherEvent.Restart(relaunch.failureId(), attempt.number + 1,
                        RestartController.replacedNodes(attempt.plan.rankNodes(), next.rankNodes()),
                        millisSince(relaunch.decidedAtNanos()), relaunch.reason()));
                if (settings.recovery() == RecoveryMode.FULL_RESTART) {
                    restarts.restartRuntime(next, RUNTIME_RESTART_BOUND);
                }
                previous = attempt;
                previousCode = code;
                attempt = new Attempt(attempt.number + 1, next);
            }
            if (settings.recovery() == RecoveryMode.TRANSPARENT && outcome.status() != JobOutcome.Status.SUCCEEDED) {
                // A restore's trees are the daemons' children, not mpirun's: stopping mpirun leaves
                // them running, after a stop or a restore that failed on one node but not the others.
                restoredLaunchers.killWhatIsLeft();
            }
            return outcome;
        } catch (RuntimeException e) {
            failure = e;
            Attempt attempt = current.get();
            if (attempt != null) {
                attempt.stopRunning();
            }
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(interruptHook);
            } catch (IllegalStateException shuttingDown) {
                // The hook runs, or has run: it reports the end.
            }
            threads.stopEvents();
            boolean ended = failure == null && outcome != null;
            int exitCode = ended ? outcome.exitCode() : ExitCode.of(failure).code();
            Attempt last = current.get();
            finish(log, new LauncherEvent.Exit(ended ? outcome.status().name().toLowerCase(Locale.ROOT) : "error",
                    exitCode, ended ? outcome.mpirunExitCode() : -1,
                    ended ? outcome.reason() : failure == null ? "" : String.valueOf(failure.getMessage()),
                    millisSince(started), follower.recoveries(), last == null ? 0 : last.number - 1, launcherCpuMillis()), registered);
            threads.stopReports();
            if (mpirunTemp != null) {
                mpirunTemp.close();
            }
        }
    }

    /**
     * Launches {@code attempt}'s mpirun and returns its exit status once it is gone (in transparent
     * mode, the last restored mpirun's). Decisions that reach the attempt meanwhile are carried out
     * by the events thread; those that came before mpirun started are carried out here.
     */
    private int runAttempt(Attempt attempt, Launch launch) {
        String job = settings.job();
        Optional<RankAotCache> aot = launch.aot();
        RankAotCache.Use aotUse = aot.map(RankAotCache::use).orElse(RankAotCache.Use.OFF);
        attempt.trainsAotCache = aotUse == RankAotCache.Use.TRAIN;
        // A training launch's rank JVMs build their caches after the program finished.
        JobRunner runner = new JobRunner(settings.exitTimeout().plus(attempt.trainsAotCache
                ? RankAotCache.BUILD_ALLOWANCE : Duration.ZERO), settings.stopGrace(), threads.events());
        Map<String, String> extraEnvironment = new LinkedHashMap<>(aot.map(a -> a.environment(aotUse)).orElse(Map.of()));
        extraEnvironment.putAll(launch.rankLibrary().noteEnvironment());
        MpirunCommand command = command(attempt.plan, launch.rankLibrary().known(), extraEnvironment);
        LineDropFilter jobErr = new LineDropFilter(err, aot.map(a -> a.notices(aotUse)).orElse(List.of()));
        launch.log().append(new LauncherEvent.Launch(attempt.number, command.argv(), attempt.plan.rankNodes(),
                attempt.plan.spareSlots(), launcherCpuMillis()));
        LOG.info(() -> "job " + job + ": " + command);
        JobFollower follower = launch.follower();
        JobRunner.LineListener lines = (stream, line) -> classifier.classify(stream, line).ifPresent(signal -> threads.submit(
                "handling " + signal.getClass().getSimpleName(), () -> openMpiReports.onSignal(attempt, follower, signal)));
        FifoOutput fifo = null;
        if (settings.recovery() == RecoveryMode.TRANSPARENT) {
            fifo = FifoOutput.open(Path.of(System.getProperty("java.io.tmpdir")), job,
                    new LineTeeOutputStream(out, line -> lines.line(JobRunner.Stream.STDOUT, line)),
                    new LineTeeOutputStream(jobErr, line -> lines.line(JobRunner.Stream.STDERR, line)));
            attempt.running = runner.start(command.redirected(fifo.stdout(), fifo.stderr()), launch.mpirunEnvironment(),
                    settings.mpirunUnset(), OutputStream.nullOutputStream(), OutputStream.nullOutputStream(), null, lines);
        } else {
            attempt.running = runner.start(command, launch.mpirunEnvironment(), settings.mpirunUnset(), out, jobErr, in, lines);
        }
        // The ranks mpirun starts on this node itself (an sbatch script's node, or any node
        // mpirun-ft runs on that also runs ranks) do not come from a node daemon the local
        // daemon started: it admits them to the rank channel as this job's mpirun's.
        attempt.running.started().thenAccept(pid -> threads.report("registering mpirun (pid " + pid + ") with the daemon",
                () -> daemon.launcherStarted(job, pid)));
        if (attempt.number > 1) {
            List<String> rankNodes = attempt.plan.rankNodes();
            threads.report("reporting the relaunch", () -> daemon.jobRelaunched(job, attempt.number, rankNodes));
        }
        // Decisions taken before the line above returned could not reach the process yet.
        if (attempt.relaunch.get() != null || attempt.stop.get() != null) {
            attempt.running.stop();
        } else if (attempt.programFinished) {
            attempt.running.programFinished();
        }
        int code = awaitExit(attempt.running);
        if (fifo != null) {
            code = restoredLaunchers.await(attempt, follower, code);
            fifo.finish(settings.stopGrace());
            fifo.close();
        }
        finishOutput(jobErr);
        threads.onEventsThread(() -> null);
        if (attempt.trainsAotCache && !attempt.running.stopRequested() && code == 0) {
            // Every rank left on its own (none was stopped), each after writing its cache
            // whole: a JVM that could not write its cache exits with status 1.
            aot.get().adopt(clock).ifPresent(cache -> LOG.fine(() -> "job " + job + ": ranks start from " + cache + " from now on"));
        }
        return code;
    }

    /** Carries out the scheduler's decisions and the program's end on the attempt running now. */
    private final class Decisions implements JobFollower.Actions {
        @Override
        public void restart(String failureId, List<String> rankNodes, Set<String> lostNodes, String reason) {
            Attempt attempt = current.get();
            if (attempt == null) {
                return;
            }
            // The newest plan wins: the scheduler re-plans a restart when another node goes meanwhile.
            attempt.relaunch.set(new Attempt.Relaunch(failureId, rankNodes, Set.copyOf(lostNodes), reason, System.nanoTime()));
            LOG.info(() -> "job " + settings.job() + ": restarting the whole job: " + reason);
            attempt.decisionMade();
        }

        @Override
        public void stop(String cause, String reason) {
            Attempt attempt = current.get();
            if (attempt != null && attempt.stop.compareAndSet(null, new JobFollower.Stop(cause, reason))) {
                // The outcome's line says it to the user, once.
                LOG.info(() -> "job " + settings.job() + ": stopping: " + reason);
                attempt.decisionMade();
            }
        }

        @Override
        public void restored(String failureId) {
            Attempt attempt = current.get();
            if (attempt != null) {
                attempt.launcherNews.add(new Attempt.Restored(failureId));
            }
        }

        @Override
        public void programFinished() {
            Attempt attempt = current.get();
            if (attempt != null) {
                attempt.programFinished();
            }
        }
    }

    /**
     * On SIGINT or SIGTERM to the launcher: mpirun's tree is stopped by the process destroyer's
     * own hook; this one has the daemons kill what runs elsewhere and reports the end.
     */
    private void interrupted(EventLog log, long started) {
        Attempt attempt = current.get();
        if (attempt == null || finished.get()) {
            return;
        }
        List<String> nodes = new ArrayList<>(attempt.plan.rankNodes());
        nodes.addAll(attempt.plan.spareNames());
        try {
            daemon.killJob(settings.job(), List.copyOf(new LinkedHashSet<>(nodes)));
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + settings.job() + ": cannot ask the daemons to kill the job: " + e.getMessage());
        }
        finish(log, new LauncherEvent.Exit("interrupted", ExitCode.INTERRUPTED.code(), -1, "mpirun-ft was interrupted",
                millisSince(started), 0, 0, launcherCpuMillis()), true);
    }

    /** Logs the exit and tells the daemon, once, whoever gets here first: the run or the interrupt hook. */
    private void finish(EventLog log, LauncherEvent.Exit exit, boolean registered) {
        if (!finished.compareAndSet(false, true)) {
            return;
        }
        log.append(exit);
        log.close();
        if (registered) {
            try {
                daemon.jobFinished(settings.job(), exit.exitCode());
            } catch (DaemonException e) {
                LOG.warning(() -> "job " + settings.job() + ": cannot tell the daemon that the job finished: " + e.getMessage());
            }
        }
    }

    /** This process's CPU time so far; -1 where the platform does not tell. */
    private static double launcherCpuMillis() {
        return ProcessHandle.current().info().totalCpuDuration().map(d -> Math.round(d.toNanos() / 1e4) / 100.0).orElse(-1.0);
    }

    private static double millisSince(long startNanos) {
        return Math.round((System.nanoTime() - startNanos) / 1e4) / 100.0;
    }

    /**
     * The argv for one attempt: ULFM on in pause mode, off for whole-job restarts; warm spares if
     * the settings and the program allow them; the ranks' variables for the AOT cache and the
     * rank library's note, if any.
     */
    MpirunCommand command(HostPlan plan, boolean programUsesRankLibrary, Map<String, String> extraEnvironment) {
        int warmSpares = settings.warmSpareRanks(plan, programUsesRankLibrary);
        // A transparent job's ranks are no rank library's: they get none of its settings (a rank
        // library program among them runs without checkpoints, CRIU's being the job's).
        Map<String, String> environment = new LinkedHashMap<>(settings.recovery() == RecoveryMode.TRANSPARENT ? Map.of()
                : RankEnvironment.of(settings, plan, warmSpares));
        environment.putAll(extraEnvironment);
        MpirunCommand.Builder builder = MpirunCommand.builder()
                .mpirun(settings.mpirun())
                .ulfm(settings.recovery() == RecoveryMode.PAUSE)
                .launchAgent(agent)
                .hosts(plan)
                .rankEnvironment(environment)
                .warmSpares(warmSpares)
                .passThrough(settings.passThrough())
                .program(settings.program());
        if (settings.recovery() == RecoveryMode.TRANSPARENT) {
            builder.transparent(settings.jobInterface());
        }
        return builder.build();
    }

    /** The job's stderr is over: a line start the filter still holds goes out. */
    private static void finishOutput(LineDropFilter jobErr) {
        try {
            jobErr.finish();
        } catch (IOException e) {
            LOG.fine(() -> "mpirun-ft: flushing the job's stderr: " + e.getMessage());
        }
    }

    private int awaitExit(JobRunner.RunningJob running) {
        try {
            return running.exit().get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running.stop();
            throw new LauncherException("interrupted while the job ran; it was stopped", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new LauncherException("mpirun failed: " + e.getCause().getMessage(), e.getCause());
        }
    }

    /**
     * The job's checkpoint directory must be writable before anything runs: a restart depends on
     * it. The user's directory is theirs alone (PrivateDirectories). A checkpoint storage directory
     * that does not exist yet is made, as any directory a user names: where the user may make it,
     * it is the user's anyway.
     */
    static void checkWritable(Path checkpointDir, String job) {
        Path jobDir = checkpointDir.resolve(job);
        try {
            Files.createDirectories(checkpointDir.getParent());
            PrivateDirectories.ensure(checkpointDir);
            PrivateDirectories.createPrivate(jobDir);
            Path probe = Files.createTempFile(jobDir, ".mpirun-ft-probe", ".tmp");
            Files.delete(probe);
        } catch (IllegalStateException e) {
            throw new CheckpointDirectoryException(checkpointDir, e.getMessage(), e);
        } catch (IOException | SecurityException e) {
            String reason = e instanceof AccessDeniedException ? "permission denied"
                    : e instanceof FileSystemException fse && fse.getReason() != null ? fse.getReason()
                    : e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
            throw new CheckpointDirectoryException(checkpointDir, reason, e);
        }
    }
}
