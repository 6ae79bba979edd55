package org.mpirunft.npb.bench;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Whether a run showed that its kernel and class do not fit this machine at its node count. Two
 * things do: memory (a rank's JVM ran out of heap, whatever the variant: checkpoints hold more
 * copies of the state than a baseline does) and time (the baseline, the variant without
 * checkpoints or failures, did not end within the bound on a run). A later variant that does not
 * end is a failure to report, not a misfit: its baseline showed the class fits.
 */
final class Fit {
    private Fit() {
    }

    /** Why the run's kernel and class do not fit, or empty if the run shows no such thing. */
    static Optional<String> misfit(Variant variant, Optional<Integer> exit, List<TimedLine> lines, Duration runTimeout, long rankHeapMb) {
        for (TimedLine line : lines) {
            if (line.text().contains("java.lang.OutOfMemoryError")) {
                return Optional.of("a rank ran out of memory in its " + rankHeapMb + " MiB heap (--rank-heap; the nodes and spares share "
                        + "3/4 of the machine's memory by default): " + line.text().strip());
            }
        }
        if (variant == Variant.BASELINE && exit.isEmpty()) {
            return Optional.of("the baseline did not end within " + runTimeout.toSeconds() + " s (--run-timeout)");
        }
        return Optional.empty();
    }
}
