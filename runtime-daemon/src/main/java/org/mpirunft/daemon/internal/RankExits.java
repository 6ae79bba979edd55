package org.mpirunft.daemon.internal;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.logging.Logger;
import org.mpirunft.common.rank.RankMessage;
import org.mpirunft.scheduler.FailureReport;
import org.mpirunft.scheduler.JobRecord;
import org.mpirunft.scheduler.JobState;
import org.mpirunft.scheduler.RecoveryMode;

/**
 * Which ends of rank channels are a rank's death. Every rank of a pause job could die with no
 * node lost (Open MPI aborted it during a recovery, or the program crashed on every rank): then
 * no surviving rank reports anything, a warm spare keeps mpirun running, and the launcher would
 * wait for good. So the rank's own daemon reports such an end: a channel that ends without the
 * rank's {@link RankMessage.Leaving}, from a process that is gone within {@link #EXIT_WAIT}, of
 * the same launch of a pause job that runs and has not finished its program. A channel that
 * ends while its process lives only broke: the rank connects again.
 */
final class RankExits {
    /** How long after its channel ended a rank's process may take to be gone; still there, it lives. */
    static final Duration EXIT_WAIT = Duration.ofSeconds(2);
    private static final Duration POLL = Duration.ofMillis(20);
    private static final Logger LOG = Logger.getLogger(RankExits.class.getName());
    /** An admitted rank whose launch is not known (it said hello while its job restarted): its end is never reported. */
    private static final int UNKNOWN = -1;

    private final String node;
    private final Duration exitWait;
    /** The launch ({@link JobRecord#attempt}) each admitted rank process belongs to, by PID. */
    private final Map<Long, Integer> attempts = new ConcurrentHashMap<>();

    RankExits(String node, Duration exitWait) {
        this.node = node;
        this.exitWait = exitWait;
    }

    /** The rank that said {@code hello} was admitted while its job was {@code record}. */
    void admitted(RankMessage.Hello hello, Optional<JobRecord> record) {
        if (hello.fromSpare()) {
            // An idle warm spare holds no rank: its end loses the job nothing it must repair. The
            // ranks see a spare that died during its call themselves (the root's bound), and a
            // spare that ends on purpose (it took a rank, or the job ended) ends its channel then.
            return;
        }
        attempts.put(hello.pid(), record.filter(r -> r.state() != JobState.RESTARTING).map(JobRecord::attempt).orElse(UNKNOWN));
    }

    /**
     * The failure report of the rank that said {@code hello}, whose channel ended without its
     * leaving, if it died; waits up to the exit wait for its process to be gone. {@code jobs}
     * reads the job as this daemon knows it now.
     */
    Optional<FailureReport> ended(RankMessage.Hello hello, Function<String, Optional<JobRecord>> jobs) {
        if (hello.fromSpare()) {
            LOG.fine(() -> node + ": the channel of warm spare " + hello.spareOf() + " of " + hello.job() + " (pid " + hello.pid()
                    + ") ended; it held no rank");
            return Optional.empty();
        }
        Integer attempt = attempts.remove(hello.pid());
        if (attempt == null || attempt == UNKNOWN) {
            return Optional.empty();
        }
        if (!awaitGone(hello.pid())) {
            LOG.fine(() -> node + ": rank " + hello.rank() + " of " + hello.job() + " (pid " + hello.pid()
                    + ") still runs after its channel ended; it connects again");
            return Optional.empty();
        }
        Optional<JobRecord> record = jobs.apply(hello.job()).filter(job -> job.mode() == RecoveryMode.PAUSE)
                .filter(job -> job.attempt() == attempt && !job.programFinished())
                .filter(job -> job.state() == JobState.RUNNING || job.state() == JobState.PAUSING || job.state() == JobState.MIGRATING);
        return record.map(job -> new FailureReport(FailureReport.EXIT, Map.of(hello.rank(), node), List.of(),
                "rank " + hello.rank() + "'s process (pid " + hello.pid() + ") on " + node + " ended without finishing",
                new FailureReport.Reporter(hello.rank(), node, attempt)));
    }

    /** Whether process {@code pid} is gone (or a zombie) within the exit wait. */
    private boolean awaitGone(long pid) {
        long deadline = System.nanoTime() + exitWait.toNanos();
        while (true) {
            // No stat: the process is gone; a zombie only waits to be reaped.
            boolean gone = LinuxProcesses.stat(pid).map(stat -> stat.state() == 'Z').orElse(true);
            if (gone) {
                return true;
            }
            if (System.nanoTime() >= deadline) {
                return false;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(POLL.toNanos(), Math.max(1, deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
