package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.loopback.LoopbackCluster;
import org.mpirunft.membership.loopback.MemberProcess;

/**
 * A member stops reading (SIGSTOP) while the coordinator sends it more than the link's buffers
 * hold: the coordinator's sender to it blocks in a socket write. The view that removes it must
 * still come within the hang detection time plus 20%, at the coordinator and at the others. As a
 * cut link with a full send buffer, where JGroups' graceful close of the removed member's
 * connection waited on that write and the view never came (RemovedMemberLinks).
 */
class FullLinkIT {
    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);
    private static final MembershipConfig CONFIG = MembershipConfig.builder(MembershipConfig.Profile.FAST)
            .heartbeatTimeout(HEARTBEAT_TIMEOUT)
            .discovery(Discovery.staticHosts(List.of(new java.net.InetSocketAddress("127.0.0.1", 7800))))
            .clusterSecret("only-here-to-compute-the-bound")
            .build();
    /** More than loopback's socket buffers hold at their largest (net.ipv4.tcp_wmem and tcp_rmem: 4 MB + 6 MB by default). */
    private static final int FLOOD_MB = 24;

    @RegisterExtension
    final ClusterExtension clusters = new ClusterExtension();

    @Test
    void aMemberWhoseLinkIsFullIsRemovedWithinTheHangDetectionTime() throws Exception {
        // The heap holds the flood while the transport keeps it for retransmission.
        LoopbackCluster cluster = clusters.start(LoopbackCluster.builder().size(3).profile("fast")
                .jvmArgs(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true"))
                .memberArgs(List.of("--heartbeat-timeout", HEARTBEAT_TIMEOUT.toMillis() + "ms")));
        String coordinator = cluster.member("n2").lastViewMembers().getFirst();
        String stopped = cluster.members().stream().map(MemberProcess::name).filter(n -> !n.equals(coordinator)).findFirst().orElseThrow();
        List<MemberProcess> others = cluster.except(stopped);
        long bound = CONFIG.hangDetectionTime().toMillis() * 12 / 10;

        long stoppedAt = System.nanoTime();
        cluster.member(stopped).signal("STOP");
        cluster.member(coordinator).send("flood " + stopped + " " + FLOOD_MB);
        Map<String, Long> latencies = ClusterChecks.awaitEverywhere(others, "NODE_FAILED", stopped, stoppedAt, Duration.ofSeconds(15));
        System.out.println("SIGSTOP " + stopped + " with " + FLOOD_MB + " MB on its way from " + coordinator
                + " -> NODE_FAILED at each member (ms): " + latencies + ", bound " + bound + " ms");
        for (Map.Entry<String, Long> e : latencies.entrySet()) {
            assertTrue(e.getValue() <= bound, e.getKey() + " removed the stopped " + stopped + " after " + e.getValue()
                    + " ms, more than hangDetectionTime + 20% = " + bound + " ms; all: " + latencies);
        }
        cluster.member(stopped).signal("CONT");
    }
}
