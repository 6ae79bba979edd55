package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.cli.EventLine;
import org.mpirunft.membership.loopback.LoopbackCluster;
import org.mpirunft.membership.loopback.MemberProcess;

/**
 * A partition of 5 members into 3 and 2, simulated inside JGroups (a DISCARD protocol on each
 * side drops everything from the other, see internal.PartitionSimulator), then healed: each
 * side reports the other failed, the groups merge, and the smaller side learns it was expelled.
 */
class PartitionIT {
    @RegisterExtension
    final ClusterExtension clusters = new ClusterExtension();

    @Test
    void partitionedSidesRemoveEachOtherThenMergeAfterHealAndSmallerSideIsExpelled() throws Exception {
        LoopbackCluster cluster = clusters.start(LoopbackCluster.builder().size(5).profile("fast"));
        List<MemberProcess> larger = List.of(cluster.member("n1"), cluster.member("n2"), cluster.member("n3"));
        List<MemberProcess> smaller = List.of(cluster.member("n4"), cluster.member("n5"));

        long cutAt = System.nanoTime();
        for (MemberProcess m : larger) {
            m.send("isolate n4,n5");
        }
        for (MemberProcess m : smaller) {
            m.send("isolate n1,n2,n3");
        }
        for (String gone : List.of("n4", "n5")) {
            ClusterChecks.awaitEverywhere(larger, "NODE_FAILED", gone, cutAt, Duration.ofSeconds(15));
        }
        for (String gone : List.of("n1", "n2", "n3")) {
            ClusterChecks.awaitEverywhere(smaller, "NODE_FAILED", gone, cutAt, Duration.ofSeconds(15));
        }
        ClusterChecks.assertSameEventsEverywhere(larger, cutAt);
        ClusterChecks.assertSameEventsEverywhere(smaller, cutAt);

        long healedAt = System.nanoTime();
        for (MemberProcess m : cluster.members()) {
            m.send("heal");
        }
        ClusterChecks.awaitEverywhere(cluster.members(), "PARTITION_HEALED", null, healedAt, Duration.ofSeconds(30));
        cluster.awaitFullView(System.nanoTime() + Duration.ofSeconds(10).toNanos());
        System.out.println("heal -> merged view at n1 after "
                + (cluster.member("n1").await("PARTITION_HEALED", null, Duration.ZERO).orElseThrow().monoNanos() - healedAt)
                / 1_000_000 + " ms");

        for (MemberProcess m : smaller) {
            // The minority knows at once that it is cut off: it lost 3 of 5 members to failures.
            EventLine expelled = m.await(l -> l.event().equals("EXPELLED") && l.monoNanos() >= cutAt && l.monoNanos() < healedAt,
                            Duration.ZERO)
                    .orElseThrow(() -> new AssertionError(m.name() + " is on the smaller side and must report its expulsion before the"
                            + " heal; events " + ClusterChecks.describe(m.events())));
            assertTrue(expelled.detail().startsWith("IN_MINORITY_AFTER_FAILURES"), m.name() + ": " + expelled.detail());
        }
        for (MemberProcess m : larger) {
            assertTrue(m.events().stream().noneMatch(l -> l.event().equals("EXPELLED")),
                    m.name() + " is on the larger side and must not consider itself expelled: " + ClusterChecks.describe(m.events()));
        }
    }
}
