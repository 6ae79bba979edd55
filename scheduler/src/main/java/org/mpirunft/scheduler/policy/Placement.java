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

    /**
     * Where each lost rank goes, or why the job must stop; {@code shrinks}: no spare for some
     * lost rank and the config says {@code shrink}, so none is replaced and the job goes on
     * with the survivors ({@code nodeByRank} empty).
     */
    public record Result(Map<Integer, String> nodeByRank, Optional<String> stopReason, boolean shrinks) {
        public Result(Map<Integer, String> nodeByRank, Optional<String> stopReason) {
            this(nodeByRank, stopReason, false);
        }

        public boolean placed() {
            return stopReason.isEmpty();
        }
    }

    public Placement(ReplacementPolicy policy, NoSpareAction whenNoSpare) {
        this.policy = policy;
        this.whenNoSpare = whenNoSpare;
    }

    /** Places the lost ranks of a recovery in place, which may shrink the job instead ({@link Result#shrinks}). */
    public Result place(List<Integer> lostRanks, Collection<Member> alive, Set<String> booked) {
        return place(lostRanks, alive, booked, true);
    }

    /** Places every rank, for a move or a whole-job restart, which cannot shrink the job: no spare is then a stop. */
    public Result placeEvery(List<Integer> ranks, Collection<Member> alive, Set<String> booked) {
        return place(ranks, alive, booked, false);
    }

    private Result place(List<Integer> lostRanks, Collection<Member> alive, Set<String> booked, boolean mayShrink) {
        Set<String> taken = new HashSet<>(booked);
        Map<Integer, String> nodeByRank = new HashMap<>();
        for (int rank : lostRanks) {
            Optional<Member> node = policy.chooseSpare(alive, taken);
            if (node.isEmpty() && whenNoSpare == NoSpareAction.USE_COMPUTE) {
                node = leastLoadedComputeWithFreeSlot(alive, taken);
            }
            if (node.isEmpty() && whenNoSpare == NoSpareAction.SHRINK && mayShrink) {
                // All or none: the ranks either replace every lost rank or go on without all of them.
                return new Result(Map.of(), Optional.empty(), true);
            }
            if (node.isEmpty()) {
                return new Result(Map.of(), Optional.of("no free spare for rank " + rank + switch (whenNoSpare) {
                    case STOP_JOB -> " and policies.when-no-spare is stop-job";
                    case USE_COMPUTE -> " and no compute node has a free slot";
                    case SHRINK -> " and policies.when-no-spare is shrink, which only a recovery in place can do";
                }
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
