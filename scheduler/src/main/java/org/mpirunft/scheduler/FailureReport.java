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
 *                  (the ranks' in-place recovery failed)
 * @param lostRanks each lost rank with the node it ran on
 * @param lostNodes nodes lost as a whole: every rank the job has there is lost
 * @param detail    for people: what the source said
 */
public record FailureReport(String source, Map<Integer, String> lostRanks, List<String> lostNodes, String detail) {
    public FailureReport {
        lostRanks = java.util.Collections.unmodifiableMap(new TreeMap<>(lostRanks));
        lostNodes = List.copyOf(lostNodes);
        detail = detail == null ? "" : detail;
    }

    public static FailureReport ranks(String source, Map<Integer, String> lostRanks, String detail) {
        return new FailureReport(source, lostRanks, List.of(), detail);
    }

    public static FailureReport nodes(String source, List<String> lostNodes, String detail) {
        return new FailureReport(source, Map.of(), lostNodes, detail);
    }
}
