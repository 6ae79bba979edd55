package org.mpirunft.launcher;

import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One run of mpirun and what was decided about it. The session's events thread sets the decisions
 * (the scheduler's restart or stop, the program's end, Open MPI's loss reports); the caller's
 * thread, which runs the attempts, reads them. Each field is atomic, volatile or a future for that
 * reason, and the futures and the news queue let the caller wait for a decision instead of polling.
 */
final class Attempt {
    /** A restart the scheduler decided: the plan to launch again on. */
    record Relaunch(String failureId, List<String> rankNodes, Set<String> lostNodes, String reason, long decidedAtNanos) {
    }

    /** A transparent restore completed: a restored mpirun runs in place of the one that was killed. */
    record Restored(String failureId) {
    }

    /** A restored mpirun exited with {@code status}. */
    record LauncherExit(int status) {
    }

    /** The scheduler decided a restart or a stop. */
    static final Object DECIDED = new Object();

    /** The scheduler's transition says every rank finished the program: a restored mpirun's exit is due. */
    static final Object FINISHED = new Object();

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
    final BlockingQueue<Object> launcherNews = new LinkedBlockingQueue<>();

    Attempt(int number, HostPlan plan) {
        this.number = number;
        this.plan = plan;
    }

    /**
     * The scheduler decided a restart or a stop, already recorded in {@link #relaunch} or
     * {@link #stop}: mpirun is stopped, and whoever waits for a decision hears of it.
     */
    void decisionMade() {
        stopRunning();
        decided.complete(null);
        launcherNews.add(DECIDED);
    }

    /** Every rank finished the program: mpirun's exit is now bounded, and a wait for it is told. */
    void programFinished() {
        programFinished = true;
        finishedSeen.complete(null);
        launcherNews.add(FINISHED);
        JobRunner.RunningJob job = running;
        if (job != null) {
            job.programFinished();
        }
    }

    void stopRunning() {
        JobRunner.RunningJob job = running;
        if (job != null) {
            job.stop();
        }
    }

    /** Whether mpirun-ft asked this attempt's mpirun to stop: for a decided restart or stop, or on Open MPI's report of a loss. */
    boolean stoppedByUs() {
        JobRunner.RunningJob job = running;
        return relaunch.get() != null || stop.get() != null || (job != null && job.stopRequested());
    }

    /** Whether a failure is about: Open MPI reported one during this attempt, or the job is not simply running. */
    boolean failureAbout(JobFollower follower) {
        return failureReported || !follower.state().equals("RUNNING");
    }
}
