package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.loopback.LoopbackCluster;
import org.mpirunft.membership.loopback.MemberProcess;

/** A graceful leave is reported as a leave, never as a suspicion or a failure. */
class GracefulLeaveIT {
    @RegisterExtension
    final ClusterExtension clusters = new ClusterExtension();

    @Test
    void leavingMembersAreReportedAsLeftNotFailed() throws Exception {
        LoopbackCluster cluster = clusters.start(LoopbackCluster.builder().size(5).profile("fast"));
        long start = System.nanoTime();

        // A participant leaves on command ...
        cluster.member("n3").send("leave");
        ClusterChecks.awaitEverywhere(cluster.except("n3"), "NODE_LEFT", "n3", start, Duration.ofSeconds(10));

        // ... and the coordinator is stopped with SIGTERM: its shutdown hook leaves gracefully.
        cluster.member("n1").signal("TERM");
        List<MemberProcess> rest = cluster.except("n1", "n3");
        ClusterChecks.awaitEverywhere(rest, "NODE_LEFT", "n1", start, Duration.ofSeconds(10));
        assertTrue(cluster.member("n1").process().waitFor(10, java.util.concurrent.TimeUnit.SECONDS),
                "n1 should exit after SIGTERM");

        for (MemberProcess m : cluster.except("n1", "n3")) {
            assertTrue(m.events().stream().noneMatch(l -> (l.event().equals("NODE_FAILED") || l.event().equals("NODE_SUSPECTED"))
                            && l.monoNanos() >= start),
                    m.name() + " reported a failure or suspicion for a graceful leave: " + ClusterChecks.describe(m.events()));
        }
        ClusterChecks.assertSameEventsEverywhere(rest, start);
    }
}
