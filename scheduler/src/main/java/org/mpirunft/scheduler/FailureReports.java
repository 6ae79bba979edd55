package org.mpirunft.scheduler;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

/**
 * The failure reports the leader has not yet judged, by job, and what they bring that the
 * table does not show yet. A failure is its lost ranks and the nodes they were lost on, so a
 * report of a rank that is being repaired, or runs elsewhere now, brings nothing. A job's
 * reports wait while a decision for it is on its way through the group ({@link
 * Proposals#inFlight}) and are judged against the table it produced; rank exits alone wait for
 * {@link #EXIT_SETTLE}, to be judged together. What is done about a {@link Verdict} is decided by
 * {@link RecoveryDecisions} (or {@link Migrations}, for a migration's lost spare).
 *
 * <p>Not thread-safe: the {@link SchedulerCore}'s lock guards it.
 */
final class FailureReports {
    /** The core's logger: operators and benchmarks set the scheduler's log level by its name. */
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());
    /**
     * How long the leader holds a job's reports while they are only rank exits ({@link
     * FailureReport#EXIT}): the ranks of one abort die within milliseconds of each other, and
     * their daemons each report one; judged one by one, the first would start a pause whose
     * spares the next ones use up, where all of them together are a relaunch. A death that a
     * surviving rank sees (ULFM) is judged at once, as before; the wait only delays a death no
     * survivor reported.
     */
    static final Duration EXIT_SETTLE = Duration.ofSeconds(1);

    /**
     * What a job's open reports bring: ranks lost where they still ran ({@code lost}), and ranks
     * whose chosen replacement was lost ({@code sparesLost}); if neither, possibly the lost spare
     * of a migration under way.
     */
    record Verdict(JobRecord job, Map<Integer, String> lost, Map<Integer, String> sparesLost, String source, String detail,
                   Optional<String> migrationSpareLost) {
        /** Whether the reports bring a loss the table does not show yet. */
        boolean isNew() {
            return !lost.isEmpty() || !sparesLost.isEmpty();
        }
    }

    private final String self;
    private final JobTable table;
    private final LongSupplier nanos;
    private final Proposals proposals;
    /** Failure reports the leader has not yet judged against a settled table, by job. */
    private final Map<String, List<FailureReport>> openReports = new LinkedHashMap<>();
    /** Until when each job's exit reports are held ({@code nanos} scale), while they are all it has. */
    private final Map<String, Long> exitsHeldUntil = new HashMap<>();

    FailureReports(String self, JobTable table, LongSupplier nanos, Proposals proposals) {
        this.self = self;
        this.table = table;
        this.nanos = nanos;
        this.proposals = proposals;
    }

    /**
     * A report from a source (ULFM, the runtime, a rank's exit); true if it is kept to be judged,
     * false if it is stale or no failure at all.
     */
    boolean reported(String job, FailureReport report) {
        // At debug: one failure is reported by several sources; the decision it leads to is logged at info.
        LOG.fine(() -> self + ": job " + job + ": " + report.source() + " reports " + report.lostRanks() + report.lostNodes()
                + " lost: " + report.detail());
        if (table.job(job).map(report::isStaleFor).orElse(false)) {
            LOG.fine(() -> self + ": job " + job + ": ignoring that report: rank " + report.reporter().rank() + " on "
                    + report.reporter().node() + " is no longer the job's");
            return false;
        }
        // A relaunch ends the old launch's processes, and a finished program its own: no failure.
        if (FailureReport.EXIT.equals(report.source())
                && table.job(job).map(j -> j.state() == JobState.RESTARTING || j.programFinished()).orElse(true)) {
            LOG.fine(() -> self + ": job " + job + ": a rank's exit while the job restarts or after its program finished: no failure");
            return false;
        }
        add(job, report);
        return true;
    }

    /** Keeps {@code report} to be judged; a rank's exit starts the job's hold. */
    void add(String job, FailureReport report) {
        openReports.computeIfAbsent(job, j -> new ArrayList<>()).add(report);
        if (FailureReport.EXIT.equals(report.source())) {
            exitsHeldUntil.putIfAbsent(job, nanos.getAsLong() + EXIT_SETTLE.toNanos());
        }
    }

    /** This daemon no longer leads: the next leader judges from its own reports. The exit holds stay. */
    void forgetOpen() {
        openReports.clear();
    }

    /** The jobs whose exit reports are held. */
    List<String> held() {
        return List.copyOf(exitsHeldUntil.keySet());
    }

    /**
     * Judges the job's open reports against the table, unless a decision for the job is still on
     * its way or its exits are held; empty if they are kept, or the job is gone or stopped.
     */
    Optional<Verdict> judge(String jobName) {
        List<FailureReport> reports = openReports.get(jobName);
        if (reports == null || reports.isEmpty() || proposals.inFlight(jobName)) {
            return Optional.empty();
        }
        boolean onlyExits = reports.stream().allMatch(r -> FailureReport.EXIT.equals(r.source()));
        Long heldUntil = exitsHeldUntil.get(jobName);
        if (onlyExits && heldUntil != null && nanos.getAsLong() - heldUntil < 0) {
            return Optional.empty();
        }
        exitsHeldUntil.remove(jobName);
        openReports.remove(jobName);
        Optional<JobRecord> found = table.job(jobName);
        if (found.isEmpty() || !found.get().state().isLive()) {
            LOG.fine(() -> self + ": job " + jobName + " is gone or stopped; " + reports.size() + " failure report(s) change nothing");
            return Optional.empty();
        }
        JobRecord job = found.get();
        // Judged against the job as it is now, not as it was when they came: a report held (exits
        // settle together) or kept behind a decision on its way may be of a launch that was
        // relaunched meanwhile, whose ranks are no longer the job's.
        reports.removeIf(report -> {
            boolean stale = report.isStaleFor(job);
            if (stale) {
                LOG.fine(() -> self + ": job " + jobName + ": ignoring a " + report.source() + " report of " + report.lostRanks()
                        + ": rank " + report.reporter().rank() + " on " + report.reporter().node() + " is no longer the job's");
            }
            return stale;
        });
        Map<Integer, String> lost = new TreeMap<>();
        Map<Integer, String> sparesLost = new TreeMap<>();
        List<String> sources = new ArrayList<>();
        List<String> details = new ArrayList<>();
        Optional<String> spareOfMigrationLost = job.migration().flatMap(m -> m.placement().values().stream()
                .filter(node -> reports.stream().anyMatch(r -> r.lostNodes().contains(node) || r.lostRanks().containsValue(node)))
                .findFirst());
        for (FailureReport report : reports) {
            Map<Integer, String> newLost = newlyLost(job, report);
            Map<Integer, String> newSpares = lostPlacements(job, report);
            if (newLost.isEmpty() && newSpares.isEmpty()) {
                LOG.fine(() -> self + ": job " + jobName + ": " + report.source() + " report " + report.lostRanks() + report.lostNodes()
                        + " is already being repaired or was repaired");
                continue;
            }
            lost.putAll(newLost);
            sparesLost.putAll(newSpares);
            if (!sources.contains(report.source())) {
                sources.add(report.source());
            }
            if (!report.detail().isEmpty()) {
                details.add(report.detail());
            }
        }
        String source = String.join("+", sources);
        String detail = String.join("; ", details);
        Verdict verdict = new Verdict(job, lost, sparesLost, source, detail, spareOfMigrationLost);
        if (verdict.isNew()) {
            LOG.info(() -> self + ": job " + jobName + ": " + source + " reports rank(s) " + lost.keySet() + " lost"
                    + (sparesLost.isEmpty() ? "" : ", and the placement(s) of " + sparesLost.keySet()) + ": " + detail);
        }
        return Optional.of(verdict);
    }

    /** The ranks a report names that still run where it says they were lost. */
    private static Map<Integer, String> newlyLost(JobRecord job, FailureReport report) {
        Map<Integer, String> lost = new TreeMap<>();
        report.lostRanks().forEach((rank, node) -> {
            if (rank >= 0 && rank < job.rankNodes().size() && job.rankNodes().get(rank).equals(node)) {
                lost.put(rank, node);
            }
        });
        for (String node : report.lostNodes()) {
            for (int rank = 0; rank < job.rankNodes().size(); rank++) {
                if (job.rankNodes().get(rank).equals(node)) {
                    lost.put(rank, node);
                }
            }
        }
        job.recovery().ifPresent(r -> lost.keySet().removeAll(r.lostRanks().keySet()));
        return lost;
    }

    /** Ranks whose chosen replacement node the report names lost: their spare must be replaced. */
    private static Map<Integer, String> lostPlacements(JobRecord job, FailureReport report) {
        Map<Integer, String> lost = new TreeMap<>();
        job.recovery().ifPresent(recovery -> recovery.placement().forEach((rank, node) -> {
            if (report.lostNodes().contains(node) || node.equals(report.lostRanks().get(rank))) {
                lost.put(rank, node);
            }
        }));
        return lost;
    }
}
