package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.cli.EventLine;
import org.mpirunft.membership.loopback.LoopbackCluster;
import org.mpirunft.membership.loopback.MemberProcess;

/**
 * SIGSTOP of a member: the others remove it within the configured hang detection time plus 20%;
 * SIGCONT: it finds out it was expelled and says so.
 */
class HangDetectionIT {
    /** The members' configuration: the fast profile with a 3 s heartbeat timeout, as passed below. */
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);
    private static final MembershipConfig CONFIG = MembershipConfig.builder(MembershipConfig.Profile.FAST)
            .heartbeatTimeout(HEARTBEAT_TIMEOUT)
            .discovery(Discovery.staticHosts(List.of(new InetSocketAddress("127.0.0.1", 7800))))
            .clusterSecret("only-here-to-compute-the-bound")
            .build();

    @RegisterExtension
    final ClusterExtension clusters = new ClusterExtension();

    @Test
    void stoppedMemberIsRemovedWithinTimeoutPlus20PercentAndReportsItsExpulsionWhenResumed() throws Exception {
        LoopbackCluster cluster = clusters.start(LoopbackCluster.builder().size(5).profile("fast")
                .memberArgs(List.of("--heartbeat-timeout", HEARTBEAT_TIMEOUT.toMillis() + "ms")));
        long bound = CONFIG.hangDetectionTime().toMillis() * 12 / 10;
        long earliest = CONFIG.heartbeatTimeout().minus(CONFIG.heartbeatInterval()).toMillis() * 3 / 4;
        List<MemberProcess> others = cluster.except("n4");

        long stoppedAt = System.nanoTime();
        cluster.member("n4").signal("STOP");
        Map<String, Long> latencies = ClusterChecks.awaitEverywhere(others, "NODE_FAILED", "n4", stoppedAt,
                Duration.ofSeconds(10));
        System.out.println("SIGSTOP n4 -> NODE_FAILED at each member (ms): " + latencies + ", bound " + bound + " ms");
        for (Map.Entry<String, Long> e : latencies.entrySet()) {
            assertTrue(e.getValue() <= bound, e.getKey() + " removed the stopped n4 after " + e.getValue()
                    + " ms, more than hangDetectionTime + 20% = " + bound + " ms; all: " + latencies);
            assertTrue(e.getValue() >= earliest, e.getKey() + " removed n4 after only " + e.getValue()
                    + " ms: that was not the heartbeat timeout; all: " + latencies);
        }

        long resumedAt = System.nanoTime();
        cluster.member("n4").signal("CONT");
        EventLine expelled = cluster.member("n4").await(l -> l.event().equals("EXPELLED") && l.monoNanos() >= resumedAt,
                Duration.ofSeconds(10)).orElseThrow(() -> new AssertionError("n4 did not report its expulsion after SIGCONT; events "
                + ClusterChecks.describe(cluster.member("n4").events()) + "\n" + cluster.member("n4").stderrTail()));
        System.out.println("SIGCONT n4 -> EXPELLED after " + (expelled.monoNanos() - resumedAt) / 1_000_000 + " ms: "
                + expelled.detail());
        // Waking, n4 learns it either from the coordinator's notice or from its own view, which
        // has lost the others: whichever comes first.
        assertTrue(expelled.detail().startsWith("REMOVED_WHILE_UNRESPONSIVE") || expelled.detail().startsWith("IN_MINORITY_AFTER_FAILURES"),
                "n4 should say it was removed while unresponsive, or left alone: " + expelled.detail());
        for (MemberProcess m : others) {
            assertTrue(m.events().stream().noneMatch(l -> l.event().equals("EXPELLED")),
                    m.name() + " was not stopped and must not consider itself expelled: " + ClusterChecks.describe(m.events()));
        }
    }
}
