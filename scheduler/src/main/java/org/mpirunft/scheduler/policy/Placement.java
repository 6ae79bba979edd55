package org.mpirunft.scheduler.policy;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.mpirunft.common.NoSpareAction;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.NodeRole;

/**
 * Places the replacements of one failure: each lost rank gets its own node, spares first by
 * the policy, then, if the config allows, compute nodes with free slots. A node already booked
 * (by this or an earlier recovery still holding it) is never chosen again.
 */
public final class Placement {
    private final ReplacementPolicy policy;
    private final NoSpareAction whenNoSpare;

    /** Where each lost rank goes, or why the job must stop. */
    public record Result(Map<Integer, String> nodeByRank, Optional<String> stopReason) {
        public boolean placed() {
            return stopReason.isEmpty();
        }
    }

    public Placement(ReplacementPolicy policy, NoSpareAction whenNoSpare) {
        this.policy = policy;
        this.whenNoSpare = whenNoSpare;
    }

    public Result place(List<Integer> lostRanks, Collection<Member> alive, Set<String> booked) {
        Set<String> taken = new HashSet<>(booked);
        Map<Integer, String> nodeByRank = new HashMap<>();
        for (int rank : lostRanks) {
            Optional<Member> node = policy.chooseSpare(alive, taken);
            if (node.isEmpty() && whenNoSpare == NoSpareAction.USE_COMPUTE) {
                node = leastLoadedComputeWithFreeSlot(alive, taken);
            }
            if (node.isEmpty()) {
                return new Result(Map.of(), Optional.of("no free spare for rank " + rank + (whenNoSpare == NoSpareAction.STOP_JOB
                        ? " and policies.when-no-spare is stop-job" : " and no compute node has a free slot")
                        + "; the job stops and keeps its checkpoints"));
            }
            taken.add(node.get().name());
            nodeByRank.put(rank, node.get().name());
        }
        return new Result(Map.copyOf(nodeByRank), Optional.empty());
    }

    private static Optional<Member> leastLoadedComputeWithFreeSlot(Collection<Member> alive, Set<String> taken) {
        List<Member> candidates = new ArrayList<>();
        for (Member member : alive) {
            if (member.role() == NodeRole.COMPUTE && !taken.contains(member.name())
                    && member.load().slotsInUse() < member.metadata().slots()) {
                candidates.add(member);
            }
        }
        return candidates.stream().min(LeastLoadedSpare.BY_LOAD);
    }
}
