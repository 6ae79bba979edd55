package org.mpirunft.npb.bench;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

/** Medians over repeated runs; missing values (null, NaN) are left out. */
public final class Medians {
    private Medians() {
    }

    /** The median of the present values, or null if there is none. Even counts average the middle two. */
    public static Double of(Collection<Double> values) {
        List<Double> present = values.stream().filter(Objects::nonNull).filter(v -> !v.isNaN()).sorted().toList();
        if (present.isEmpty()) {
            return null;
        }
        int middle = present.size() / 2;
        return present.size() % 2 == 1 ? present.get(middle) : (present.get(middle - 1) + present.get(middle)) / 2;
    }
}
