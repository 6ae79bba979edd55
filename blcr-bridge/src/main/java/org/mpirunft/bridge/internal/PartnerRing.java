package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Who holds whose copy at the partner level ({@link PartnerCopies}): a ring over the job's nodes,
 * in the order they first appear among the ranks, so that a rank's part is always on another
 * node than its own. Computed from every rank's node as the world is now, so a replacement on a
 * spare takes its place in the ring.
 */
final class PartnerRing {
    private PartnerRing() {
    }

    /**
     * The rank that holds {@code source}'s part: on the node after {@code source}'s in the order
     * the nodes first appear among the ranks, the rank there with the same position among its
     * node's ranks (modulo their number). -1 if the ranks run on one node: nobody can hold it.
     */
    static int holderOf(int source, List<String> nodeOfRank) {
        Map<String, List<Integer>> ranksByNode = new LinkedHashMap<>();
        for (int r = 0; r < nodeOfRank.size(); r++) {
            ranksByNode.computeIfAbsent(nodeOfRank.get(r), n -> new ArrayList<>()).add(r);
        }
        if (ranksByNode.size() < 2) {
            return -1;
        }
        List<String> nodes = new ArrayList<>(ranksByNode.keySet());
        String node = nodeOfRank.get(source);
        int position = ranksByNode.get(node).indexOf(source);
        List<Integer> next = ranksByNode.get(nodes.get((nodes.indexOf(node) + 1) % nodes.size()));
        return next.get(position % next.size());
    }

    /** The ranks whose parts {@code holder} holds. */
    static List<Integer> sourcesOf(int holder, List<String> nodeOfRank) {
        List<Integer> sources = new ArrayList<>();
        for (int r = 0; r < nodeOfRank.size(); r++) {
            if (r != holder && holderOf(r, nodeOfRank) == holder) {
                sources.add(r);
            }
        }
        return sources;
    }
}
