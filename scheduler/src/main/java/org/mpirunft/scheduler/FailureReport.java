package org.mpirunft.scheduler;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A failure as one source saw it. A failure is identified by its lost ranks and the nodes they
 * were lost on, so reports of the same failure from several sources, at any time, name the same
 * failure: a second report of a failure being repaired, or already repaired, changes nothing.
 *
 * @param source    who saw it: {@code ulfm} (a rank), {@code runtime} (Open MPI reported a lost
 *                  node daemon or rank), {@code detector} (the daemons' view), {@code ranks}
 *                  (the ranks' in-place recovery failed), {@link #EXIT} (a rank's process ended
 *                  without finishing)
 * @param lostRanks each lost rank with the node it ran on
 * @param lostNodes nodes lost as a whole: every rank the job has there is lost
 * @param detail    for people: what the source said
 */
public record FailureReport(String source, Map<Integer, String> lostRanks, List<String> lostNodes, String detail,
                            Reporter reporter) {
    /**
     * The source of a rank's own daemon that saw the rank's process end without saying it leaves
     * on purpose; the reporter is then the rank that ended.
     */
    public static final String EXIT = "exit";

    public FailureReport {
        lostRanks = java.util.Collections.unmodifiableMap(new TreeMap<>(lostRanks));
        lostNodes = List.copyOf(lostNodes);
        detail = detail == null ? "" : detail;
    }

    /** A report of no rank: Open MPI's or the detector's. */
    public FailureReport(String source, Map<Integer, String> lostRanks, List<String> lostNodes, String detail) {
        this(source, lostRanks, lostNodes, detail, null);
    }

    public static FailureReport ranks(String source, Map<Integer, String> lostRanks, String detail) {
        return new FailureReport(source, lostRanks, List.of(), detail);
    }

    public static FailureReport nodes(String source, List<String> lostNodes, String detail) {
        return new FailureReport(source, Map.of(), lostNodes, detail);
    }

    /**
     * The rank that sent a report (or that a report is about), and the node it sent it from. A
     * rank whose node hung or was cut off, and was replaced meanwhile, wakes up alone: its MPI
     * tells it that every other rank failed, and it says so. Such a rank is no longer the job's,
     * and its reports change nothing; nor is a rank of an earlier launch of the job.
     *
     * @param attempt the launch of the job the rank belongs to ({@link JobRecord#attempt}), or 0
     *                when the source does not know it: then any
     */
    public record Reporter(int rank, String node, int attempt) {
        public Reporter(int rank, String node) {
            this(rank, node, 0);
        }

        /** Whether the rank runs on that node as far as {@code job} knows: where it ran, or where its recovery or migration places it. */
        public boolean isCurrentIn(JobRecord job) {
            if (attempt != 0 && attempt != job.attempt()) {
                return false;
            }
            boolean runsThere = rank >= 0 && rank < job.rankNodes().size() && job.rankNodes().get(rank).equals(node);
            return runsThere || job.recovery().map(r -> node.equals(r.placement().get(rank))).orElse(false)
                    || job.migration().map(m -> node.equals(m.placement().get(rank))).orElse(false);
        }

        /** Whether {@code reporter} is a rank (not null) that {@code job} no longer has on its node. */
        public static boolean isStale(Reporter reporter, JobRecord job) {
            return reporter != null && !reporter.isCurrentIn(job);
        }
    }

    /** Whether a rank sent this and {@code job} no longer has that rank on that node. */
    public boolean isStaleFor(JobRecord job) {
        return Reporter.isStale(reporter, job);
    }
}
