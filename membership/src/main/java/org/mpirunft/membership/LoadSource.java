package org.mpirunft.membership;

import java.lang.management.ManagementFactory;
import java.util.function.IntSupplier;

/** Where a member's periodic load reports come from; the daemon supplies its slot count. */
@FunctionalInterface
public interface LoadSource {
    NodeLoad sample();

    /** The machine's one-minute load average, with slots in use from {@code slotsInUse}. */
    static LoadSource system(IntSupplier slotsInUse) {
        return () -> {
            double average = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            return new NodeLoad(average < 0 ? -1 : average, slotsInUse.getAsInt());
        };
    }
}
