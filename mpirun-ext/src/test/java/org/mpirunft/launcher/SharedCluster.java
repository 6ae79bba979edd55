package org.mpirunft.launcher;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * One simulated cluster for the tests of a class that need a healthy cluster, not a fresh one:
 * brought up on first use, and after each test repaired (killed nodes revived, hung, cut and split
 * ones healed) and awaited as one group of every node with one leader and nothing of a job left
 * running. A test that failed, or a cluster that is not healthy within {@link #HEALTHY_BOUND_MILLIS},
 * is taken down, and the next test comes up on a fresh one: a failure stays the failing test's.
 * Its tests' job names must differ, since a job name used again resumes that job's checkpoints.
 *
 * <p>{@code @RegisterExtension static final SharedCluster SHARED = new SharedCluster(() -> ...);}
 */
final class SharedCluster implements AfterEachCallback, AfterAllCallback {
    /** A hung or cut node's daemon merges back within MERGE3's interval; a revived one starts and joins in seconds. */
    static final long HEALTHY_BOUND_MILLIS = 45_000;

    private final Supplier<SimulatedCluster> up;
    private SimulatedCluster cluster;

    SharedCluster(Supplier<SimulatedCluster> up) {
        this.up = up;
    }

    /** The class's cluster, brought up if this is its first test or the last one left it unusable. */
    synchronized SimulatedCluster cluster() {
        if (cluster == null) {
            cluster = up.get();
        }
        return cluster;
    }

    @Override
    public synchronized void afterEach(ExtensionContext context) throws Exception {
        if (cluster == null) {
            return;
        }
        if (context.getExecutionException().isPresent()) {
            down();
            return;
        }
        Optional<String> wrong = repair(cluster, context.getDisplayName());
        if (wrong.isPresent()) {
            System.out.println("SharedCluster: " + cluster.name() + " is not taken on (" + wrong.get() + "); the next test gets a fresh one");
            down();
        }
    }

    /**
     * Waits until nothing of {@code test}'s jobs is left running, then repairs {@code cluster}
     * and waits for one healthy group, within {@link #HEALTHY_BOUND_MILLIS}; returns what is
     * still wrong, or empty.
     */
    static Optional<String> repair(SimulatedCluster cluster, String test) throws InterruptedException {
        ChaosCluster chaos = new ChaosCluster(cluster);
        List<ChaosCluster.Leftover> left = chaos.awaitNothingLeft();
        return left.isEmpty() ? chaos.repairAndAwaitHealthy(HEALTHY_BOUND_MILLIS)
                : Optional.of("processes left by " + test + ": " + left);
    }

    @Override
    public synchronized void afterAll(ExtensionContext context) {
        if (cluster != null) {
            down();
        }
    }

    private void down() {
        try {
            cluster.close();
        } finally {
            cluster = null;
        }
    }
}
