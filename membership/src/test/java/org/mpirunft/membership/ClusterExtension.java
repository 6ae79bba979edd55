package org.mpirunft.membership;

import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.mpirunft.membership.loopback.LoopbackCluster;

/**
 * The member processes of a process-level test ({@code *IT}): a test starts its cluster with
 * {@link #start}, and the cluster's processes are killed after the test, whether it passed or
 * not. Register it as an instance field with {@code @RegisterExtension}.
 */
final class ClusterExtension implements AfterEachCallback {
    /** How long the members may take to form one view. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private LoopbackCluster cluster;

    /** Starts the members {@code builder} describes and returns once all of them share one view. */
    LoopbackCluster start(LoopbackCluster.Builder builder) throws IOException, InterruptedException {
        cluster = LoopbackCluster.start(builder, START_TIMEOUT);
        return cluster;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (cluster != null) {
            cluster.close();
            cluster = null;
        }
    }
}
