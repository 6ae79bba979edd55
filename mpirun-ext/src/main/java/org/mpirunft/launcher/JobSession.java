package org.mpirunft.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ErrorCode;

/**
 * One job from launch to exit: what {@code mpirun-ft [options] PROGRAM} does.
 *
 * <ol>
 *   <li>Checks the checkpoint directory, asks the local daemon for the cluster's view, plans
 *       hosts and spares ({@link HostPlanner}), registers the job with its rank-to-node table.</li>
 *   <li>Subscribes to the scheduler's commands for the job, which go to the {@link PauseRelay}.</li>
 *   <li>Runs mpirun ({@link JobRunner}, {@link MpirunCommand}) with {@code MPIRUN_FT_JOB} in its
 *       environment for the launch agent, and reads its output for evidence
 *       ({@link JobOutputClassifier}, {@link JobEvidence}).</li>
 *   <li>Reports committed epochs ({@link CommitWatcher}).</li>
 *   <li>When mpirun is gone, relaunches the whole job if a restart was decided or nodes were
 *       lost ({@link RestartController}), else reports the outcome ({@code jobFinished}) and
 *       returns it.</li>
 * </ol>
 * Threads: the caller's runs the attempts; one scheduled thread ({@code events}) handles every
 * command, output signal and scan in order, and owns the rank table and the relay; a
 * subscriber thread reads the daemon's stream; Commons Exec's pumps read mpirun's output.
 */
public final class JobSession {
    private static final Logger LOG = Logger.getLogger(JobSession.class.getName());
    /** How long the node daemons of a full restart get to leave and join again. */
    private static final java.time.Duration RUNTIME_RESTART_BOUND = java.time.Duration.ofSeconds(90);
    private static final String UNNAMED_DAEMON_LOSS = "mpirun lost a node daemon";
    private static final long COMMIT_SCAN_MILLIS = 500;
    private static final long RESUBSCRIBE_MILLIS = 1000;
    /** Measured recoveries take 0.4-2.6 s, most of it a replacement JVM starting; this leaves room. */
    private static final Duration PAUSE_DEFERRAL = Duration.ofSeconds(5);

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
    private final CountDownLatch closed = new CountDownLatch(1);
    /** Set once the end is reported, by the run or by the interrupt hook. */
    private final AtomicBoolean finished = new AtomicBoolean();
    /** The attempt running now; set by the caller's thread, read by the events thread. */
    private final AtomicReference<Attempt> current = new AtomicReference<>();

    /** One run of mpirun. Its restart request and stop reason are set once, by the events thread. */
    private static final class Attempt {
        final HostPlan plan;
        final JobEvidence evidence = new JobEvidence();
        final AtomicReference<RestartRequest> restart = new AtomicReference<>();
        final AtomicReference<String> stopReason = new AtomicReference<>();
        volatile JobRunner.RunningJob running;

        Attempt(HostPlan plan) {
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
        HostPlan plan = HostPlanner.plan(settings.hosts(), settings.ranks(), settings.spares(), settings.sparesExplicit(),
                settings.mapping(), status.members());
        EventLog log = EventLog.open(settings.eventLog(), job, clock);
        Thread subscriber = null;
        JobOutcome outcome = null;
        RestartController restarts = new RestartController(job, daemon, log, settings.maxRestarts(), System::nanoTime);
        RankTable table = new RankTable(plan.rankNodes());
        PauseRelay relay = null;
        boolean registered = false;
        RuntimeException failure = null;
        Thread interruptHook = Thread.ofPlatform().name("mpirun-ft-interrupted").unstarted(() -> interrupted(log, started));
        Runtime.getRuntime().addShutdownHook(interruptHook);
        try {
            daemon.registerJob(job, plan.rankNodes());
            registered = true;
            JobRunner runner = new JobRunner(settings.exitTimeout(), settings.stopGrace(), events);
            Attempt attempt = new Attempt(plan);
            relay = new PauseRelay(job, daemon, log, table, plan.spareSlots(), settings.recovery(), attempt.evidence,
                    escalation(), System::nanoTime, clock.millis()).deferPausesMpirunSaw(events, PAUSE_DEFERRAL);
            PauseRelay theRelay = relay;
            subscriber = subscribe(job, theRelay);
            CommitWatcher commits = new CommitWatcher(job, settings.checkpointDir(), daemon, log);
            events.scheduleWithFixedDelay(() -> guarded("scanning for committed epochs", commits::scan),
                    COMMIT_SCAN_MILLIS, COMMIT_SCAN_MILLIS, TimeUnit.MILLISECONDS);
            for (int number = 1; ; number++) {
                current.set(attempt);
                MpirunCommand command = command(attempt.plan);
                log.append(new LauncherEvent.Launch(number, command.argv(), attempt.plan.rankNodes(), attempt.plan.spareSlots()));
                LOG.info(() -> "job " + job + ": " + command);
                Attempt running = attempt;
                running.running = runner.start(command, Map.of(RankEnvironment.JOB, job), out, err, in,
                        (stream, line) -> classifier.classify(line).ifPresent(signal -> submit(
                                "handling " + signal.getClass().getSimpleName(), () -> onSignal(running, theRelay, table, log, signal))));
                // Signals handled before the line above returned could not reach the process yet.
                if (running.restart.get() != null || running.stopReason.get() != null) {
                    running.running.stop();
                } else if (running.evidence.isProgramFinished()) {
                    running.running.programFinished();
                }
                int code = awaitExit(running.running);
                onEventsThread(() -> null);
                JobOutcome result = running.evidence.judge(code, running.running.killedAfterFinish(), settings.exitTimeout(),
                        Optional.ofNullable(running.stopReason.get()));
                outcome = result;
                if (running.stopReason.get() != null) {
                    break;
                }
                List<String> rankNodes = onEventsThread(table::nodes);
                Optional<HostPlan> next = restarts.planRelaunch(Optional.ofNullable(running.restart.get()), result,
                        running.plan, rankNodes, settings.recovery());
                if (next.isEmpty()) {
                    break;
                }
                if (settings.recovery() == RecoveryMode.FULL_RESTART) {
                    restarts.restartRuntime(next.get(), RUNTIME_RESTART_BOUND);
                }
                attempt = new Attempt(next.get());
                Attempt nextAttempt = attempt;
                onEventsThread(() -> {
                    theRelay.relaunched(nextAttempt.plan.rankNodes(), nextAttempt.plan.spareSlots(), nextAttempt.evidence);
                    return null;
                });
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
            finish(log, new LauncherEvent.Exit(ended ? outcome.status().name().toLowerCase(Locale.ROOT) : "error",
                    exitCode, ended ? outcome.mpirunExitCode() : -1,
                    ended ? outcome.reason() : failure == null ? "" : String.valueOf(failure.getMessage()),
                    millisSince(started), relay != null ? relay.recoveries() : 0, restarts.restarts()), registered);
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
                millisSince(started), 0, 0), true);
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

    private static double millisSince(long startNanos) {
        return Math.round((System.nanoTime() - startNanos) / 1e4) / 100.0;
    }

    /** The argv for one attempt: ULFM on in pause mode, off for whole-job restarts. */
    MpirunCommand command(HostPlan plan) {
        return MpirunCommand.builder()
                .mpirun(settings.mpirun())
                .ulfm(settings.recovery() == RecoveryMode.PAUSE)
                .launchAgent(agent)
                .hosts(plan)
                .rankEnvironment(RankEnvironment.of(settings, plan))
                .passThrough(settings.passThrough())
                .program(settings.program())
                .build();
    }

    private void onSignal(Attempt attempt, PauseRelay relay, RankTable table, EventLog log, JobSignal signal) {
        if (current.get() != attempt) {
            return;
        }
        switch (signal) {
            case JobSignal.Recovered recovered -> relay.recovered(recovered);
            case JobSignal.RankLost lost -> {
                if (lost.rank() >= table.size() || !table.nodeOf(lost.rank()).equals(lost.node())) {
                    return;
                }
                log.append(new LauncherEvent.Failure("", List.of(lost.rank()), List.of(lost.node()), "mpi"));
                relay.mpirunReportedLost(lost.node());
                attempt.evidence.failureSeen("rank " + lost.rank() + " on " + lost.node() + " died");
                if (settings.recovery().restartsWholeJob()) {
                    log.append(new LauncherEvent.Decision("", "restart", Map.of(), "--recovery restart"));
                    requestRestart(attempt, new RestartRequest("", Set.of(), Map.of(),
                            "rank " + lost.rank() + " on " + lost.node() + " died", false, System.nanoTime()));
                }
            }
            case JobSignal.RuntimeLost lost -> {
                if (lost.node().isEmpty()) {
                    // PRRTE names the node on a later line; until then it may be any node.
                    attempt.evidence.failureSeen(UNNAMED_DAEMON_LOSS);
                } else if (!table.nodes().contains(lost.node())) {
                    // A node the job already left (replaced, fenced): its daemon's end is no failure.
                    attempt.evidence.dismiss(UNNAMED_DAEMON_LOSS);
                    LOG.info(() -> "job " + settings.job() + ": mpirun lost the node daemon of " + lost.node()
                            + ", a node the job no longer uses");
                } else {
                    attempt.evidence.dismiss(UNNAMED_DAEMON_LOSS);
                    log.append(new LauncherEvent.Failure("", table.ranksOn(lost.node()), List.of(lost.node()), "runtime"));
                    relay.mpirunReportedLost(lost.node());
                    attempt.evidence.failureSeen("mpirun lost the node daemon of " + lost.node());
                    if (settings.recovery().restartsWholeJob()) {
                        log.append(new LauncherEvent.Decision("", "restart", Map.of(), "--recovery restart"));
                        requestRestart(attempt, new RestartRequest("", Set.of(lost.node()), Map.of(),
                                "mpirun lost the node daemon of " + lost.node(), false, System.nanoTime()));
                    }
                }
            }
            case JobSignal.RecoveryFailed failed -> {
                attempt.evidence.terminalFailure(failed.line());
                if (failed.restartable() && settings.recovery() == RecoveryMode.PAUSE) {
                    requestRestart(attempt, new RestartRequest("", Set.of(), Map.of(),
                            "the ranks' in-place recovery failed", true, System.nanoTime()));
                }
            }
            case JobSignal.ProgramFinished finished -> {
                attempt.evidence.programFinished();
                JobRunner.RunningJob running = attempt.running;
                if (running != null) {
                    running.programFinished();
                }
            }
        }
    }

    private PauseRelay.Escalation escalation() {
        return new PauseRelay.Escalation() {
            @Override
            public boolean runtimeAlive() {
                Attempt attempt = current.get();
                if (attempt == null) {
                    return false;
                }
                JobRunner.RunningJob running = attempt.running;
                // Not started yet counts as alive: it is about to be.
                return running == null || !running.exit().isDone() && !running.stopRequested();
            }

            @Override
            public void restart(RestartRequest request) {
                Attempt attempt = current.get();
                if (attempt != null) {
                    attempt.evidence.failureSeen(request.reason());
                    requestRestart(attempt, request);
                }
            }

            @Override
            public void stop(String reason) {
                Attempt attempt = current.get();
                if (attempt != null && attempt.stopReason.compareAndSet(null, reason)) {
                    LOG.warning(() -> "job " + settings.job() + ": stopping: " + reason);
                    JobRunner.RunningJob running = attempt.running;
                    if (running != null) {
                        running.stop();
                    }
                }
            }
        };
    }

    private void requestRestart(Attempt attempt, RestartRequest request) {
        if (!attempt.restart.compareAndSet(null, request)) {
            LOG.info(() -> "job " + settings.job() + ": a restart is already under way; " + request.reason());
            return;
        }
        if (request.fallback() && request.failureId().isEmpty()) {
            // PauseRelay logs the fallbacks it decides; these are decided from the job's output.
            LOG.warning(() -> "job " + settings.job() + ": falling back to a whole-job restart: " + request.reason());
        }
        JobRunner.RunningJob running = attempt.running;
        if (running != null) {
            running.stop();
        }
    }

    private Thread subscribe(String job, PauseRelay relay) {
        return Thread.ofPlatform().name("mpirun-ft-subscribe").daemon().start(() -> {
            boolean warned = false;
            while (closed.getCount() > 0) {
                try {
                    daemon.subscribe(job, command -> submit("handling command " + command.key(), () -> relay.onCommand(command)));
                } catch (DaemonException e) {
                    if (closed.getCount() == 0) {
                        return;
                    }
                    if (!warned) {
                        LOG.warning(() -> "job " + job + ": lost the daemon's command stream (" + e.getMessage() + "); retrying");
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
        }
    }

    /** Queues {@code task} on the events thread; dropped once the session has ended. */
    private void submit(String what, Runnable task) {
        try {
            events.execute(() -> guarded(what, task));
        } catch (RejectedExecutionException sessionOver) {
            LOG.fine(() -> "job " + settings.job() + ": session over, not " + what);
        }
    }

    private void guarded(String what, Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "job " + settings.job() + ": " + what + " failed: " + e.getMessage(), e);
        }
    }

    /** The job's checkpoint directory must be writable before anything runs: a restart depends on it. */
    static void checkWritable(Path checkpointDir, String job) {
        Path jobDir = checkpointDir.resolve(job);
        try {
            Files.createDirectories(jobDir);
            Path probe = Files.createTempFile(jobDir, ".mpirun-ft-probe", ".tmp");
            Files.delete(probe);
        } catch (IOException | SecurityException e) {
            String reason = e instanceof AccessDeniedException ? "permission denied"
                    : e instanceof FileSystemException fse && fse.getReason() != null ? fse.getReason()
                    : e.getClass().getSimpleName() + (e.getMessage() != null ? ": " + e.getMessage() : "");
            throw new CheckpointDirectoryException(checkpointDir, reason, e);
        }
    }
}
