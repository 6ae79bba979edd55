package org.mpirunft.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.logging.Logger;
import org.apache.commons.exec.CommandLine;
import org.apache.commons.exec.DefaultExecutor;
import org.apache.commons.exec.ExecuteException;
import org.apache.commons.exec.ExecuteResultHandler;
import org.apache.commons.exec.PumpStreamHandler;
import org.mpirunft.common.Durations;
import org.mpirunft.launcher.internal.LineTeeOutputStream;
import org.mpirunft.launcher.internal.ProcessTreeDestroyer;

/**
 * Runs Open MPI's mpirun through Commons Exec. The job's stdout and stderr stream through to the
 * given streams byte for byte, as mpirun would print them, and every line is also handed to a
 * listener, which reads the evidence of what happened. mpirun's whole local process tree is
 * stopped on {@link RunningJob#stop} and when the launcher exits ({@link ProcessTreeDestroyer}).
 * Once the program has finished ({@link RunningJob#programFinished}), mpirun gets
 * {@code exitTimeout} to exit before it is stopped: MPI_Finalize can hang after a recovery.
 */
public final class JobRunner {
    private static final Logger LOG = Logger.getLogger(JobRunner.class.getName());
    /** How long the output pumps may drain after mpirun exits (an orphan may hold the pipe open). */
    private static final Duration PUMP_DRAIN = Duration.ofSeconds(2);

    private final Duration exitTimeout;
    private final Duration stopGrace;
    private final ScheduledExecutorService timer;

    /** @param timer runs the exit bound; the caller owns it */
    public JobRunner(Duration exitTimeout, Duration stopGrace, ScheduledExecutorService timer) {
        this.exitTimeout = exitTimeout;
        this.stopGrace = stopGrace;
        this.timer = timer;
    }

    /** Where a line came from. */
    public enum Stream { STDOUT, STDERR }

    /** Receives every line of the job's output, on the pump thread of its stream. */
    @FunctionalInterface
    public interface LineListener {
        void line(Stream stream, String line);
    }

    /**
     * Starts mpirun. {@code environment} is added to this process's environment for mpirun.
     *
     * @throws InstallationException if the executable cannot be found
     */
    public RunningJob start(MpirunCommand command, Map<String, String> environment, OutputStream out, OutputStream err,
                            InputStream in, LineListener listener) {
        return start(command, environment, List.of(), out, err, in, listener);
    }

    /** As above, with the variables {@code unset} taken out of mpirun's environment first. */
    public RunningJob start(MpirunCommand command, Map<String, String> environment, List<String> unset, OutputStream out,
                            OutputStream err, InputStream in, LineListener listener) {
        Map<String, String> env = new HashMap<>(System.getenv());
        unset.forEach(env::remove);
        env.putAll(environment);
        String executable = resolve(command.executable(), env.get("PATH"));
        CommandLine line = new CommandLine(executable);
        for (String argument : command.arguments()) {
            line.addArgument(argument, false);
        }
        ProcessTreeDestroyer destroyer = new ProcessTreeDestroyer(stopGrace);
        LineTeeOutputStream stdout = new LineTeeOutputStream(out, l -> listener.line(Stream.STDOUT, l));
        LineTeeOutputStream stderr = new LineTeeOutputStream(err, l -> listener.line(Stream.STDERR, l));
        PumpStreamHandler streams = new PumpStreamHandler(stdout, stderr, in);
        streams.setStopTimeout(PUMP_DRAIN);
        DefaultExecutor executor = DefaultExecutor.builder().setExecuteStreamHandler(streams).get();
        executor.setExitValues(null);
        executor.setProcessDestroyer(destroyer);
        RunningJob job = new RunningJob(destroyer, stdout, stderr);
        try {
            executor.execute(line, env, job.resultHandler());
        } catch (IOException e) {
            throw new InstallationException("cannot start " + executable + ": " + e.getMessage());
        }
        return job;
    }

    /** An absolute or relative path as it is; a bare name looked up on {@code path}, as a shell would. */
    static String resolve(String executable, String path) {
        if (executable.contains("/")) {
            if (!Files.isExecutable(Paths.get(executable))) {
                throw new InstallationException("Open MPI's mpirun is not at " + executable + " (set --mpirun, or MPI_HOME)");
            }
            return executable;
        }
        if (path != null) {
            for (String dir : path.split(":")) {
                Path candidate = Paths.get(dir.isEmpty() ? "." : dir, executable);
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate.toString();
                }
            }
        }
        throw new InstallationException("Open MPI's " + executable + " is not on the PATH (set --mpirun, or MPI_HOME)");
    }

    /** A started mpirun. */
    public final class RunningJob {
        private final ProcessTreeDestroyer destroyer;
        private final LineTeeOutputStream stdout;
        private final LineTeeOutputStream stderr;
        private final CompletableFuture<Integer> exit = new CompletableFuture<>();
        private final AtomicBoolean stopping = new AtomicBoolean();
        private final AtomicBoolean killedAfterFinish = new AtomicBoolean();
        private volatile ScheduledFuture<?> exitBound;

        private RunningJob(ProcessTreeDestroyer destroyer, LineTeeOutputStream stdout, LineTeeOutputStream stderr) {
            this.destroyer = destroyer;
            this.stdout = stdout;
            this.stderr = stderr;
        }

        /** mpirun's exit status, once it is gone and its output is drained; 128+N if killed by signal N. */
        public CompletableFuture<Integer> exit() {
            return exit;
        }

        /** mpirun's PID once it started; never completes if it could not start. */
        public CompletableFuture<Long> started() {
            return destroyer.started();
        }

        /** mpirun's pid, or -1 before it started or after it exited. */
        public long pid() {
            Process process = destroyer.process();
            return process == null ? -1 : process.pid();
        }

        /** The program is done: give mpirun {@code exitTimeout} to exit, then stop it. Idempotent. */
        public void programFinished() {
            if (exitBound != null || exit.isDone()) {
                return;
            }
            exitBound = timer.schedule(() -> {
                if (!exit.isDone()) {
                    LOG.warning(() -> "mpirun-ft: the program finished but mpirun did not exit within "
                            + Durations.format(exitTimeout) + "; stopping it");
                    killedAfterFinish.set(true);
                    stop();
                }
            }, exitTimeout.toMillis(), TimeUnit.MILLISECONDS);
        }

        /** How long mpirun may take to exit once the program finished: its runner's bound. */
        public Duration exitTimeout() {
            return exitTimeout;
        }

        /** Whether mpirun was stopped by the exit bound. */
        public boolean killedAfterFinish() {
            return killedAfterFinish.get();
        }

        /**
         * Stops mpirun and its local process tree (SIGTERM, then SIGKILL after the grace period),
         * in the background; {@link #exit()} completes once it is gone. Idempotent.
         */
        public CompletableFuture<Integer> stop() {
            if (!exit.isDone() && stopping.compareAndSet(false, true)) {
                destroyer.stopInBackground();
            }
            return exit;
        }

        public boolean stopRequested() {
            return stopping.get();
        }

        private ExecuteResultHandler resultHandler() {
            return new ExecuteResultHandler() {
                @Override
                public void onProcessComplete(int exitValue) {
                    finish(exitValue);
                }

                @Override
                public void onProcessFailed(ExecuteException e) {
                    if (e.getExitValue() == org.apache.commons.exec.Executor.INVALID_EXITVALUE) {
                        exit.completeExceptionally(new InstallationException("cannot start mpirun: "
                                + (e.getCause() != null ? e.getCause().getMessage() : e.getMessage())));
                        return;
                    }
                    finish(e.getExitValue());
                }
            };
        }

        private void finish(int exitValue) {
            ScheduledFuture<?> bound = exitBound;
            if (bound != null) {
                bound.cancel(false);
            }
            try {
                stdout.close();
                stderr.close();
            } catch (IOException e) {
                LOG.fine(() -> "mpirun-ft: flushing the job's output: " + e.getMessage());
            }
            exit.complete(exitValue);
        }
    }

    /** For the lead's wiring and tests: the bound this runner applies after the program finished. */
    public Duration exitTimeout() {
        return exitTimeout;
    }
}
