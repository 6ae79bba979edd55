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
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.mpirunft.common.Durations;
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
 *   <li>Runs mpirun ({@link JobRunner}, {@link MpirunCommand}). Open MPI's own reports of a lost
 *       rank or node daemon, which exist only as mpirun's output, are passed on to the scheduler
 *       as failure reports ({@link JobOutputClassifier}): one source among three.</li>
 *   <li>When mpirun is gone: relaunches on the scheduler's plan if it decided a restart, or asks
 *       for a decision if mpirun ended before the program finished with a failure about, else
 *       reports the outcome ({@code jobFinished}) and returns it.</li>
 * </ol>
 * Threads: the caller's runs the attempts; one scheduled thread ({@code events}) takes the
 * daemon's events and mpirun's signals in order; a subscriber thread reads the daemon's stream;
 * reports to the daemon go out on virtual threads, so a slow daemon never holds the events up;
 * Commons Exec's pumps read mpirun's output. While the job runs and nothing fails, mpirun-ft
 * only waits.
 *
 * <p>Longer than most classes here: the attempt loop, the decisions it waits for and the
 * outcome it judges share one attempt's state, which the events thread sets; split, each part
 * would need that state and its ordering rules again. Every wait is listed with its bound in
 * mpirun-ext/README.md, "Waits".
 */
public final class JobSession {
    private static final Logger LOG = Logger.getLogger(JobSession.class.getName());
    /** How long the node daemons of a full restart get to leave and join again. */
    private static final Duration RUNTIME_RESTART_BOUND = Duration.ofSeconds(90);
    /**
     * How long mpirun-ft waits, after mpirun exited with a failure about, for the program's end or
     * the scheduler's transition to reach it before it asks; never longer than the decision timeout.
     */
    private static final Duration FINISH_GRACE = Duration.ofSeconds(5);
    private static final long RESUBSCRIBE_MILLIS = 1000;
    /**
     * How long after {@code --exit-timeout} a restored mpirun's exit may take to reach mpirun-ft
     * once the program finished: the daemon reaps it and sends its status on the job's stream.
     */
    private static final Duration EXIT_REPORT_MARGIN = Duration.ofSeconds(10);

    private final LaunchSettings settings;
    private final DaemonClient daemon;
    private final OutputStream out;
    private final OutputStream err;
    private final InputStream in;
    private final Clock clock;
    private final JobOutputClassifier classifier;
    private final String agent;

    private final ScheduledThreadPoolExecutor events = new ScheduledThreadPoolExecutor(1, r -> {
        Thread t = new Thread(r, "mpirun-ft-events");
        t.setDaemon(true);
        return t;
    });
    private final ExecutorService reports = Executors.newVirtualThreadPerTaskExecutor();
    private final CountDownLatch closed = new CountDownLatch(1);
    /** Set once the end is reported, by the run or by the interrupt hook. */
    private final AtomicBoolean finished = new AtomicBoolean();
    /** The attempt running now; set by the caller's thread, read by the events thread. */
    private final AtomicReference<Attempt> current = new AtomicReference<>();

    /** A restart the scheduler decided: the plan to launch again on. */
    record Relaunch(String failureId, List<String> rankNodes, Set<String> lostNodes, String reason, long decidedAtNanos) {
    }

    /** A transparent restore completed: a restored mpirun runs in place of the one that was killed. */
    private record Restored(String failureId) {
    }

    /** A restored mpirun exited with {@code status}. */
    private record LauncherExit(int status) {
    }

    /** The scheduler decided a restart or a stop. */
    private static final Object DECIDED = new Object();

    /** The scheduler's transition says every rank finished the program: a restored mpirun's exit is due. */
    private static final Object FINISHED = new Object();

    /** One run of mpirun. The decisions about it are set by the events thread, read by the caller's. */
    private static final class Attempt {
        final int number;
        final HostPlan plan;
        final AtomicReference<Relaunch> relaunch = new AtomicReference<>();
        final AtomicReference<JobFollower.Stop> stop = new AtomicReference<>();
        /** Completes when the scheduler decided a restart or a stop for this attempt. */
        final CompletableFuture<Void> decided = new CompletableFuture<>();
        /** Completes when the scheduler's transition says every rank finished the program. */
        final CompletableFuture<Void> finishedSeen = new CompletableFuture<>();
        /** Open MPI reported a lost rank or node daemon during this attempt. */
        volatile boolean failureReported;
        /** The last such report passed on to the scheduler; completes once it dealt with it. Null if none. */
        volatile CompletableFuture<Void> lossReported;
        volatile boolean programFinished;
        /** Transparent mode: the program finished, and a restored mpirun's exit did not reach mpirun-ft within its bound. */
        volatile boolean restoredExitUnreported;
        /** The rank JVMs of this attempt write their AOT cache when they exit ({@link RankAotCache.Use#TRAIN}). */
        volatile boolean trainsAotCache;
        volatile JobRunner.RunningJob running;
        /**
         * Transparent mode: what becomes of mpirun after its first process is gone, in order: a
         * restore ({@link Restored}: a restored mpirun runs), a restored mpirun's exit
         * ({@link LauncherExit}), the program's end ({@link #FINISHED}), or the scheduler's restart
         * or stop ({@link #DECIDED}).
         */
        final java.util.concurrent.BlockingQueue<Object> launcherNews = new java.util.concurrent.LinkedBlockingQueue<>();

        Attempt(int number, HostPlan plan) {
            this.number = number;
            this.plan = plan;
        }
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
        JobFollower follower = new JobFollower(job, plan.rankNodes(), settings.recovery(), log, actions(),
                System::nanoTime);
        Thread subscriber = null;
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
            subscriber = subscribe(job, follower);
            // A transparent job's program need not be a rank library program, which is what trains an AOT cache.
            Optional<RankAotCache> aot = settings.aotCache() && settings.recovery() != RecoveryMode.TRANSPARENT
                    ? Optional.of(RankAotCache.of(settings.checkpointDir(), settings.program(), Paths.get("").toAbsolutePath(),
                            System.getenv("PATH")))
                    : Optional.empty();
            // Warm spares are ranks of the program's world: a program gets them only if its rank library hides them.
            RankLibraryProgram.Verdict rankLibrary = RankLibraryProgram.verdict(settings, plan, Paths.get("").toAbsolutePath(),
                    System.getenv());
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
                    outcome = judge(attempt, follower, previousCode);
                    break;
                }
                RankAotCache.Use aotUse = aot.map(RankAotCache::use).orElse(RankAotCache.Use.OFF);
                attempt.trainsAotCache = aotUse == RankAotCache.Use.TRAIN;
                // A training launch's rank JVMs build their caches after the program finished.
                JobRunner runner = new JobRunner(settings.exitTimeout().plus(attempt.trainsAotCache
                        ? RankAotCache.BUILD_ALLOWANCE : Duration.ZERO), settings.stopGrace(), events);
                Map<String, String> extraEnvironment = new LinkedHashMap<>(aot.map(a -> a.environment(aotUse)).orElse(Map.of()));
                extraEnvironment.putAll(rankLibrary.noteEnvironment());
                MpirunCommand command = command(attempt.plan, rankLibrary.known(), extraEnvironment);
                LineDropFilter jobErr = new LineDropFilter(err, aot.map(a -> a.notices(aotUse)).orElse(List.of()));
                log.append(new LauncherEvent.Launch(attempt.number, command.argv(), attempt.plan.rankNodes(),
                        attempt.plan.spareSlots(), launcherCpuMillis()));
                LOG.info(() -> "job " + job + ": " + command);
                Attempt running = attempt;
                JobRunner.LineListener lines = (stream, line) -> classifier.classify(stream, line).ifPresent(signal -> submit(
                        "handling " + signal.getClass().getSimpleName(), () -> onSignal(running, follower, signal)));
                FifoOutput fifo = null;
                if (settings.recovery() == RecoveryMode.TRANSPARENT) {
                    fifo = FifoOutput.open(Path.of(System.getProperty("java.io.tmpdir")), job,
                            new LineTeeOutputStream(out, line -> lines.line(JobRunner.Stream.STDOUT, line)),
                            new LineTeeOutputStream(jobErr, line -> lines.line(JobRunner.Stream.STDERR, line)));
                    running.running = runner.start(command.redirected(fifo.stdout(), fifo.stderr()), mpirunEnvironment,
                            settings.mpirunUnset(), OutputStream.nullOutputStream(), OutputStream.nullOutputStream(), null, lines);
                } else {
                    running.running = runner.start(command, mpirunEnvironment, settings.mpirunUnset(), out, jobErr, in, lines);
                }
                // The ranks mpirun starts on this node itself (an sbatch script's node, or any node
                // mpirun-ft runs on that also runs ranks) do not come from a node daemon the local
                // daemon started: it admits them to the rank channel as this job's mpirun's.
                running.running.started().thenAccept(pid -> report("registering mpirun (pid " + pid + ") with the daemon",
                        () -> daemon.launcherStarted(job, pid)));
                if (running.number > 1) {
                    List<String> rankNodes = running.plan.rankNodes();
                    report("reporting the relaunch", () -> daemon.jobRelaunched(job, running.number, rankNodes));
                }
                // Decisions taken before the line above returned could not reach the process yet.
                if (running.relaunch.get() != null || running.stop.get() != null) {
                    running.running.stop();
                } else if (running.programFinished) {
                    running.running.programFinished();
                }
                int code = awaitExit(running.running);
                if (fifo != null) {
                    code = awaitRestoredLaunchers(running, follower, code);
                    fifo.finish(settings.stopGrace());
                    fifo.close();
                }
                finishOutput(jobErr);
                onEventsThread(() -> null);
                if (running.trainsAotCache && !running.running.stopRequested() && code == 0) {
                    // Every rank left on its own (none was stopped), each after writing its cache
                    // whole: a JVM that could not write its cache exits with status 1.
                    aot.get().adopt(clock).ifPresent(cache -> LOG.fine(() -> "job " + job + ": ranks start from " + cache + " from now on"));
                }
                Relaunch relaunch = afterExit(running, follower, code);
                if (relaunch == null) {
                    outcome = judge(running, follower, code);
                    break;
                }
                HostPlan next = restarts.relaunchPlan(running.plan, relaunch.rankNodes(), relaunch.lostNodes());
                log.append(new LauncherEvent.Restart(relaunch.failureId(), running.number + 1,
                        RestartController.replacedNodes(running.plan.rankNodes(), next.rankNodes()),
                        millisSince(relaunch.decidedAtNanos()), relaunch.reason()));
                if (settings.recovery() == RecoveryMode.FULL_RESTART) {
                    restarts.restartRuntime(next, RUNTIME_RESTART_BOUND);
                }
                previous = running;
                previousCode = code;
                attempt = new Attempt(running.number + 1, next);
            }
            if (settings.recovery() == RecoveryMode.TRANSPARENT && outcome.status() != JobOutcome.Status.SUCCEEDED) {
                // A restore's trees are the daemons' children, not mpirun's: stopping mpirun leaves
                // them running, after a stop or a restore that failed on one node but not the others.
                killWhatIsLeft();
            }
            return outcome;
        } catch (RuntimeException e) {
            failure = e;
            Attempt attempt = current.get();
            if (attempt != null && attempt.running != null) {
                attempt.running.stop();
            }
            throw e;
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(interruptHook);
            } catch (IllegalStateException shuttingDown) {
                // The hook runs, or has run: it reports the end.
            }
            closed.countDown();
            if (subscriber != null) {
                subscriber.interrupt();
            }
            events.shutdownNow();
            boolean ended = failure == null && outcome != null;
            int exitCode = ended ? outcome.exitCode() : ExitCode.of(failure).code();
            Attempt last = current.get();
            finish(log, new LauncherEvent.Exit(ended ? outcome.status().name().toLowerCase(Locale.ROOT) : "error",
                    exitCode, ended ? outcome.mpirunExitCode() : -1,
                    ended ? outcome.reason() : failure == null ? "" : String.valueOf(failure.getMessage()),
                    millisSince(started), follower.recoveries(), last == null ? 0 : last.number - 1, launcherCpuMillis()), registered);
            reports.shutdown();
            if (mpirunTemp != null) {
                mpirunTemp.close();
            }
        }
    }

    /**
     * Transparent mode: mpirun's first process is gone with {@code code}. If a failure is about, a
     * restore brings mpirun back from the last committed epoch as a process of the daemon's, which
     * tells its exit: followed here, restore after restore, until an mpirun exits with no restore
     * coming, or the scheduler decides a restart or a stop. Returns the last mpirun's status.
     *
     * <p>Bounds: with no restored mpirun running, the scheduler's decision within the decision
     * timeout (or {@link #FINISH_GRACE}); with one running, the program's own run (as for mpirun
     * itself: its end, a restore or a decision comes through the job's stream), then, once the
     * program finished, {@code --exit-timeout} and {@link #EXIT_REPORT_MARGIN} for its exit to be
     * reported. Past that (the daemon's message lost, or mpirun hung in its exit), mpirun-ft asks
     * the daemons to kill what is left of the job and reports the job finished
     * ({@link Attempt#restoredExitUnreported}).
     */
    private int awaitRestoredLaunchers(Attempt attempt, JobFollower follower, int code) {
        Duration exitBound = settings.exitTimeout().plus(EXIT_REPORT_MARGIN);
        long exitDeadline = 0;
        Duration grace = FINISH_GRACE.compareTo(settings.decisionTimeout()) < 0 ? FINISH_GRACE : settings.decisionTimeout();
        int status = code;
        boolean restoredRuns = false;
        // The daemon reaps a restored mpirun a moment after it exits; should that come before the
        // restore's transition did (a short run), the exit waits here for its restore.
        LauncherExit early = null;
        while (attempt.relaunch.get() == null && attempt.stop.get() == null) {
            Object news;
            try {
                if (restoredRuns) {
                    if (attempt.programFinished && exitDeadline == 0) {
                        exitDeadline = System.nanoTime() + exitBound.toNanos();
                    }
                    news = exitDeadline == 0 ? attempt.launcherNews.take()
                            : attempt.launcherNews.poll(Math.max(0, exitDeadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                    if (news == null) {
                        stopUnreportedLauncher(attempt, exitBound);
                        break;
                    }
                } else {
                    onEventsThread(() -> null);
                    boolean failureAbout = attempt.failureReported || !follower.state().equals("RUNNING");
                    // An mpirun that failed may have seen the node go before the scheduler's decision came.
                    Duration wait = failureAbout ? settings.decisionTimeout() : status == 0 ? Duration.ZERO : grace;
                    news = attempt.launcherNews.poll(wait.toMillis(), TimeUnit.MILLISECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LauncherException("interrupted while the job was being restored", e);
            }
            if (news == null || news == DECIDED) {
                break;
            }
            if (news == FINISHED) {
                continue; // With a restored mpirun running, its exit is now due within exitBound.
            }
            if (news instanceof Restored restored) {
                LOG.info(() -> "job " + settings.job() + ": restored from its last committed epoch (" + restored.failureId() + ")");
                restoredRuns = true;
                attempt.failureReported = false;
                if (early != null) {
                    attempt.launcherNews.add(early);
                    early = null;
                }
            } else if (news instanceof LauncherExit exit) {
                if (!restoredRuns) {
                    early = exit;
                    continue;
                }
                int exitStatus = exit.status();
                LOG.info(() -> "job " + settings.job() + ": the restored mpirun exited with status " + exitStatus);
                status = exitStatus;
                restoredRuns = false;
            }
        }
        return status;
    }

    /**
     * The program finished, but the restored mpirun's exit did not come within {@code bound}: the
     * daemons kill what is left of the job (their kill is bounded by the daemon client's reply
     * bound), and the job ends as finished, saying so.
     */
    private void stopUnreportedLauncher(Attempt attempt, Duration bound) {
        attempt.restoredExitUnreported = true;
        LOG.warning(() -> "job " + settings.job() + ": the program finished but the restored mpirun's exit was not reported within "
                + Durations.format(bound) + "; asking the daemons to stop what is left of the job");
        killWhatIsLeft();
    }

    /** Has the daemons of every node kill the job's processes, waiting for them at most the decision timeout. */
    private void killWhatIsLeft() {
        completesWithin(report("stopping what is left of the job", () -> daemon.killJob(settings.job(), List.of())),
                settings.decisionTimeout());
    }

    /**
     * What follows mpirun's end: the relaunch the scheduler decided, or null when the job is over.
     * If mpirun ended before the program finished and a failure is about (Open MPI reported one,
     * or the job is recovering), the scheduler is asked to decide, and its decision is awaited.
     */
    private Relaunch afterExit(Attempt attempt, JobFollower follower, int code) {
        if (attempt.stop.get() != null) {
            return null;
        }
        if (attempt.relaunch.get() != null) {
            return attempt.relaunch.get();
        }
        if (attempt.programFinished) {
            return null;
        }
        boolean failureAbout = attempt.failureReported || !follower.state().equals("RUNNING");
        if (!failureAbout) {
            return null; // a program that failed on healthy nodes would fail again
        }
        Duration grace = FINISH_GRACE.compareTo(settings.decisionTimeout()) < 0 ? FINISH_GRACE : settings.decisionTimeout();
        if (code == 0 && completesWithin(CompletableFuture.anyOf(attempt.finishedSeen, attempt.decided), grace)) {
            // Rank 0 reports the program's end before it finalizes, so mpirun can exit before
            // the scheduler's transition has come back here: asked now, the scheduler would
            // restart a job that is done.
            return decision(attempt);
        }
        CompletableFuture<Void> loss = attempt.lossReported;
        if (loss != null && completesWithin(loss, settings.decisionTimeout()) && completesWithin(attempt.decided, grace)) {
            // Stopped on Open MPI's report (stopIfUnrecoverable); the scheduler decided on it.
            return decision(attempt);
        }
        String reason = "mpirun exited with status " + code + " before the program finished";
        LOG.warning(() -> "job " + settings.job() + ": " + reason + "; asking the scheduler for a decision");
        try {
            daemon.restartNeeded(settings.job(), "runtime", reason);
            if (!completesWithin(attempt.decided, settings.decisionTimeout())) {
                LOG.warning(() -> "job " + settings.job() + ": no decision from the scheduler within "
                        + Durations.format(settings.decisionTimeout()));
            }
        } catch (DaemonException e) {
            LOG.warning(() -> "job " + settings.job() + ": no decision from the scheduler: " + e.getMessage());
        }
        return decision(attempt);
    }

    /**
     * The relaunch decided for {@code attempt}, or null for a stop or no decision; read once the
     * events thread has handled every transition that reached it before this call.
     */
    private Relaunch decision(Attempt attempt) {
        onEventsThread(() -> null);
        return attempt.stop.get() != null ? null : attempt.relaunch.get();
    }

    /** Whether {@code future} completes within {@code bound}; its failure counts as completion. */
    private static boolean completesWithin(CompletableFuture<?> future, Duration bound) {
        try {
            future.get(bound.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (ExecutionException e) {
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException("interrupted while waiting for the scheduler", e);
        }
    }

    /** The outcome of a job that is over: stopped, finished, or ended by mpirun. */
    private JobOutcome judge(Attempt attempt, JobFollower follower, int code) {
        JobFollower.Stop stop = attempt.stop.get();
        if (stop != null) {
            ExitCode exit = stop.cause().equals("no-spare") ? ExitCode.NO_SPARE : ExitCode.JOB_STOPPED;
            return new JobOutcome(JobOutcome.Status.STOPPED, exit.code(), code, "job " + settings.job() + " stopped: " + stop.reason()
                    + " (checkpoints kept; launch again with --job " + settings.job() + " to resume)");
        }
        if (attempt.programFinished) {
            if (attempt.restoredExitUnreported) {
                return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), code, "the program finished but the restored"
                        + " mpirun's exit was not reported within " + Durations.format(settings.exitTimeout().plus(EXIT_REPORT_MARGIN))
                        + "; what was left of the job was stopped");
            }
            if (attempt.running.killedAfterFinish()) {
                return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), code,
                        "the program finished but mpirun did not exit within " + Durations.format(attempt.running.exitTimeout())
                                + "; it was stopped");
            }
            if (code != 0 && attempt.trainsAotCache) {
                // A training JVM that cannot write its cache (a full disk) exits with status 1
                // after its program's end: the result stands, the cache is not adopted.
                return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), code, "the program finished; mpirun's status " + code
                        + " counts rank JVMs that could not write their AOT cache (this launch trained one)");
            }
            if (code != 0 && follower.recoveries() > 0) {
                // PRRTE counts a replacement that died while it started (its spare was lost) as a
                // process that exited improperly, and says so in its status, although the ranks
                // replaced it again and every rank agreed that the program finished.
                return new JobOutcome(JobOutcome.Status.SUCCEEDED, ExitCode.OK.code(), code, "the program finished after "
                        + follower.recoveries() + " recovery(ies); mpirun's status " + code + " counts the processes lost on the way");
            }
            return code == 0 ? new JobOutcome(JobOutcome.Status.SUCCEEDED, 0, 0, "")
                    : new JobOutcome(JobOutcome.Status.FAILED, exitCodeOf(code), code, "mpirun exited with status " + code);
        }
        if (attempt.failureReported || !follower.state().equals("RUNNING")) {
            return new JobOutcome(JobOutcome.Status.RANKS_LOST, ExitCode.RANKS_LOST.code(), code,
                    "ranks lost and not recovered (job " + follower.state().toLowerCase(Locale.ROOT) + ", mpirun returned " + code + ")");
        }
        return code == 0 ? new JobOutcome(JobOutcome.Status.SUCCEEDED, 0, 0, "")
                : new JobOutcome(JobOutcome.Status.FAILED, exitCodeOf(code), code, "mpirun exited with status " + code);
    }

    private static int exitCodeOf(int mpirunCode) {
        return mpirunCode > 0 && mpirunCode < 256 ? mpirunCode : ExitCode.RANKS_LOST.code();
    }

    /** What the follower asks of the session; called on the events thread. */
    private JobFollower.Actions actions() {
        return new JobFollower.Actions() {
            @Override
            public void restart(String failureId, List<String> rankNodes, Set<String> lostNodes, String reason) {
                Attempt attempt = current.get();
                if (attempt == null) {
                    return;
                }
                // The newest plan wins: the scheduler re-plans a restart when another node goes meanwhile.
                attempt.relaunch.set(new Relaunch(failureId, rankNodes, Set.copyOf(lostNodes), reason, System.nanoTime()));
                LOG.info(() -> "job " + settings.job() + ": restarting the whole job: " + reason);
                stopRunning(attempt);
                attempt.decided.complete(null);
                attempt.launcherNews.add(DECIDED);
            }

            @Override
            public void stop(String cause, String reason) {
                Attempt attempt = current.get();
                if (attempt != null && attempt.stop.compareAndSet(null, new JobFollower.Stop(cause, reason))) {
                    // The outcome's line says it to the user, once.
                    LOG.info(() -> "job " + settings.job() + ": stopping: " + reason);
                    stopRunning(attempt);
                    attempt.decided.complete(null);
                    attempt.launcherNews.add(DECIDED);
                }
            }

            @Override
            public void restored(String failureId) {
                Attempt attempt = current.get();
                if (attempt != null) {
                    attempt.launcherNews.add(new Restored(failureId));
                }
            }

            @Override
            public void programFinished() {
                Attempt attempt = current.get();
                if (attempt != null) {
                    attempt.programFinished = true;
                    attempt.finishedSeen.complete(null);
                    attempt.launcherNews.add(FINISHED);
                    JobRunner.RunningJob running = attempt.running;
                    if (running != null) {
                        running.programFinished();
                    }
                }
            }
        };
    }

    private static void stopRunning(Attempt attempt) {
        JobRunner.RunningJob running = attempt.running;
        if (running != null) {
            running.stop();
        }
    }

    /** Open MPI's own reports: passed on to the scheduler as failure reports, which judges them with the others. */
    private void onSignal(Attempt attempt, JobFollower follower, JobSignal signal) {
        if (current.get() != attempt) {
            return;
        }
        String job = settings.job();
        List<String> rankNodes = follower.rankNodes();
        if (!(signal instanceof JobSignal.ProgramFinished) && stoppedByUs(attempt)) {
            // The node daemons and ranks that go with an mpirun we stopped are our own doing: to the
            // scheduler they would be a second failure, planned for again, or a job stopped for want
            // of spares. A node that truly fails meanwhile leaves the group, which the scheduler sees.
            LOG.info(() -> "job " + job + ": mpirun, being stopped, reports " + signal.line().strip() + "; not a new loss");
            return;
        }
        switch (signal) {
            case JobSignal.RankLost lost -> {
                // Open MPI names the process by its launch rank; a shrink renumbered the job's ranks.
                int rank = follower.jobRankOf(lost.rank()).orElse(-1);
                if (rank >= 0 && rank < rankNodes.size() && rankNodes.get(rank).equals(lost.node())) {
                    attempt.failureReported = true;
                    attempt.lossReported = report("reporting the loss of rank " + rank, () -> daemon.failureReported(job,
                            "runtime", Map.of(rank, lost.node()), List.of(), lost.line().strip()));
                    stopIfUnrecoverable(attempt, "rank " + rank);
                }
            }
            case JobSignal.RuntimeLost lost -> {
                if (lost.node().isEmpty()) {
                    attempt.failureReported = true; // PRRTE names the node on a later line
                } else if (rankNodes.contains(lost.node())) {
                    attempt.failureReported = true;
                    attempt.lossReported = report("reporting the loss of " + lost.node(), () -> daemon.failureReported(job,
                            "runtime", Map.of(), List.of(lost.node()), "mpirun lost the node daemon of " + lost.node()));
                    stopIfUnrecoverable(attempt, "the node daemon of " + lost.node());
                } else {
                    LOG.info(() -> "job " + job + ": mpirun lost the node daemon of " + lost.node() + ", a node the job no longer uses");
                }
            }
            case JobSignal.ProgramFinished done -> actions().programFinished();
        }
    }

    /** Whether mpirun-ft asked this attempt's mpirun to stop: for a decided restart or stop, or on Open MPI's report of a loss. */
    private static boolean stoppedByUs(Attempt attempt) {
        JobRunner.RunningJob running = attempt.running;
        return attempt.relaunch.get() != null || attempt.stop.get() != null || (running != null && running.stopRequested());
    }

    /**
     * Sends a report to the daemon off the events thread; a failure is logged once, the scheduler
     * hears of it from the other sources too. The future completes when the call returned or failed.
     */
    private CompletableFuture<Void> report(String what, Runnable call) {
        try {
            return CompletableFuture.runAsync(() -> {
                try {
                    call.run();
                } catch (DaemonException e) {
                    LOG.warning(() -> "job " + settings.job() + ": " + what + " failed: " + e.getMessage());
                }
            }, reports);
        } catch (RejectedExecutionException sessionOver) {
            LOG.fine(() -> "job " + settings.job() + ": session over, not " + what);
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * Without ULFM (the restart modes) mpirun ends the job itself once it lost a rank or a node
     * daemon, so it is stopped at once, while the report travels: the restart's stop overlaps
     * the way to the scheduler and back. Whether and where the job runs again is still the
     * scheduler's decision, awaited after mpirun's exit ({@link #afterExit}).
     */
    private void stopIfUnrecoverable(Attempt attempt, String lost) {
        if (settings.recovery().restartsWholeJob()) {
            LOG.info(() -> "job " + settings.job() + ": mpirun lost " + lost + "; stopping it for the scheduler's restart");
            stopRunning(attempt);
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

    /** Reads the daemon's event stream for the job, subscribing again if the connection drops. */
    private Thread subscribe(String job, JobFollower follower) {
        return Thread.ofPlatform().name("mpirun-ft-subscribe").daemon().start(() -> {
            boolean warned = false;
            while (closed.getCount() > 0) {
                try {
                    daemon.subscribe(job, event -> submit("following " + job, () -> follower.on(event)),
                            exited -> submit("following " + job + "'s mpirun", () -> {
                                Attempt attempt = current.get();
                                if (attempt != null) {
                                    attempt.launcherNews.add(new LauncherExit(exited.status()));
                                }
                            }));
                } catch (DaemonException e) {
                    if (closed.getCount() == 0) {
                        return;
                    }
                    if (!warned) {
                        LOG.warning(() -> "job " + job + ": lost the daemon's event stream (" + e.getMessage() + "); subscribing again");
                        warned = true;
                    }
                }
                try {
                    if (closed.await(RESUBSCRIBE_MILLIS, TimeUnit.MILLISECONDS)) {
                        return;
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
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

    /** Runs {@code task} on the events thread after everything queued before it. */
    private <T> T onEventsThread(Callable<T> task) {
        try {
            return events.submit(task).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException("interrupted", e);
        } catch (ExecutionException e) {
            throw new LauncherException("mpirun-ft's event handling failed: " + e.getCause().getMessage(), e.getCause());
        } catch (RejectedExecutionException e) {
            return null;
        }
    }

    /** Queues {@code task} on the events thread; dropped once the session has ended. */
    private void submit(String what, Runnable task) {
        try {
            events.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "job " + settings.job() + ": " + what + " failed: " + e.getMessage(), e);
                }
            });
        } catch (RejectedExecutionException sessionOver) {
            LOG.fine(() -> "job " + settings.job() + ": session over, not " + what);
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
