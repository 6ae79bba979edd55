package org.mpirunft.scheduler.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Finds a replacement policy by its config name: the built-in {@link LeastLoadedSpare}, or any
 * {@link ReplacementPolicy} on the class path registered with {@link ServiceLoader}.
 */
public final class ReplacementPolicies {
    private ReplacementPolicies() {
    }

    public static ReplacementPolicy byName(String name) {
        if (LeastLoadedSpare.NAME.equals(name)) {
            return new LeastLoadedSpare();
        }
        List<String> known = new ArrayList<>(List.of(LeastLoadedSpare.NAME));
        for (ReplacementPolicy policy : ServiceLoader.load(ReplacementPolicy.class)) {
            if (policy.name().equals(name)) {
                return policy;
            }
            known.add(policy.name());
        }
        throw new IllegalArgumentException("no replacement policy named '" + name + "' (known: " + String.join(", ", known) + ")");
    }
}
