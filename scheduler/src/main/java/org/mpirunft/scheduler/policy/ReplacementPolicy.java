package org.mpirunft.scheduler.policy;

import java.util.Collection;
import java.util.Optional;
import java.util.Set;
import org.mpirunft.membership.Member;

/**
 * Chooses the node a replacement rank starts on. Implementations are named in the config
 * ({@code policies.replacement}); {@link ReplacementPolicies} finds them. They must be
 * deterministic: every daemon runs the same policy over the same view and must agree.
 */
public interface ReplacementPolicy {
    /** The name the config uses. */
    String name();

    /**
     * A spare for one replacement among the {@code alive} members, never one in {@code booked};
     * empty when no spare is free.
     */
    Optional<Member> chooseSpare(Collection<Member> alive, Set<String> booked);
}
