package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The node of every rank of a running job, as mpirun-ft knows it: from the launch plan, then
 * changed by each recovery. Not thread-safe: the job session's event thread owns it.
 */
public final class RankTable {
    private final List<String> nodes;

    public RankTable(List<String> rankNodes) {
        this.nodes = new ArrayList<>(rankNodes);
    }

    /** Index = rank. A copy. */
    public List<String> nodes() {
        return List.copyOf(nodes);
    }

    public int size() {
        return nodes.size();
    }

    public String nodeOf(int rank) {
        if (rank < 0 || rank >= nodes.size()) {
            throw new IllegalArgumentException("rank " + rank + " is not in a job of " + nodes.size() + " ranks");
        }
        return nodes.get(rank);
    }

    public void move(int rank, String node) {
        nodeOf(rank);
        nodes.set(rank, node);
    }

    /** Every node that runs a rank, in rank order. */
    public List<String> distinctNodes() {
        return List.copyOf(new LinkedHashSet<>(nodes));
    }

    public List<Integer> ranksOn(String node) {
        List<Integer> ranks = new ArrayList<>();
        for (int r = 0; r < nodes.size(); r++) {
            if (nodes.get(r).equals(node)) {
                ranks.add(r);
            }
        }
        return ranks;
    }

    public void reset(List<String> rankNodes) {
        nodes.clear();
        nodes.addAll(rankNodes);
    }

    @Override
    public String toString() {
        return nodes.toString();
    }
}
