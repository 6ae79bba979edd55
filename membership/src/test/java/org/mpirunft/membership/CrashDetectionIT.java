package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.loopback.LoopbackCluster;
import org.mpirunft.membership.loopback.MemberProcess;

/** kill -9 of a member: every other member reports it failed within 500 ms (production timeouts). */
class CrashDetectionIT {
    private static final Duration BOUND = Duration.ofMillis(500);

    private LoopbackCluster cluster;

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void killedParticipantIsReportedFailedByEveryOtherMemberWithin500msInTheSameOrder() throws Exception {
        cluster = LoopbackCluster.start(LoopbackCluster.builder().size(5).profile("production"), Duration.ofSeconds(60));
        assertKillReportedWithinBound("n3");
    }

    @Test
    void killedCoordinatorIsReportedFailedByEveryOtherMemberWithin500msInTheSameOrder() throws Exception {
        cluster = LoopbackCluster.start(LoopbackCluster.builder().size(5).profile("production"), Duration.ofSeconds(60));
        String coordinator = cluster.member("n2").lastViewMembers().getFirst();
        assertKillReportedWithinBound(coordinator); // the next in line takes over
    }

    private void assertKillReportedWithinBound(String victim) throws Exception {
        List<MemberProcess> survivors = cluster.except(victim);
        long killedAt = System.nanoTime(); // before forking kill(1): the measured time includes the fork
        cluster.member(victim).signal("KILL");
        Map<String, Long> latencies = ClusterChecks.awaitEverywhere(survivors, "NODE_FAILED", victim, killedAt,
                Duration.ofSeconds(10));
        System.out.println("kill -9 " + victim + " -> NODE_FAILED at each survivor (ms): " + latencies);
        for (Map.Entry<String, Long> e : latencies.entrySet()) {
            assertTrue(e.getValue() <= BOUND.toMillis(), e.getKey() + " reported the failure of " + victim + " "
                    + e.getValue() + " ms after kill -9, more than " + BOUND.toMillis() + " ms; all: " + latencies);
        }
        ClusterChecks.awaitEverywhere(survivors, "NODE_SUSPECTED", victim, killedAt, Duration.ofSeconds(1));
        ClusterChecks.assertSameEventsEverywhere(survivors, killedAt);
    }
}
