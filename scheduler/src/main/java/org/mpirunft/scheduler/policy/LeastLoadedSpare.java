package org.mpirunft.scheduler.policy;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeRole;

/**
 * The default: the free spare with the fewest slots in use, then the lowest load average (an
 * unknown load counts as the highest), then the name, so that every daemon picks the same one.
 */
public final class LeastLoadedSpare implements ReplacementPolicy {
    public static final String NAME = "least-loaded-spare";

    static final Comparator<Member> BY_LOAD = Comparator
            .comparingInt((Member m) -> m.load().slotsInUse())
            .thenComparingDouble(m -> loadOf(m.load()))
            .thenComparing(Member::name);

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Optional<Member> chooseSpare(Collection<Member> alive, Set<String> booked) {
        return alive.stream()
                .filter(m -> m.role() == NodeRole.SPARE && !booked.contains(m.name()))
                .min(BY_LOAD);
    }

    private static double loadOf(NodeLoad load) {
        return load.isKnown() ? load.loadAverage() : Double.MAX_VALUE;
    }
}
