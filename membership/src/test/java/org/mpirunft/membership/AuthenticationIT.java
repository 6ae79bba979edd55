package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.mpirunft.membership.cli.MembershipCli;
import org.mpirunft.membership.loopback.LoopbackCluster;
import org.mpirunft.membership.loopback.MemberProcess;

/** A process with the wrong cluster secret cannot join: the coordinator refuses it (AUTH). */
class AuthenticationIT {
    @RegisterExtension
    final ClusterExtension clusters = new ClusterExtension();

    @Test
    void memberWithWrongSecretIsRefusedAndNeverAppearsInTheGroup() throws Exception {
        LoopbackCluster cluster = clusters.start(LoopbackCluster.builder().size(3).extraPorts(1).profile("fast"));

        MemberProcess intruder = cluster.spawnOther("intruder", cluster.sparePort(0), "not-the-cluster-secret-at-all",
                List.of());
        assertTrue(intruder.process().waitFor(30, TimeUnit.SECONDS), "the intruder should give up and exit");
        assertEquals(MembershipCli.EXIT_JOIN_REFUSED, intruder.process().exitValue(),
                "exit code of a refused join; stderr:\n" + intruder.stderrTail());
        assertTrue(intruder.stderrTail().contains("refused"), "the intruder should say it was refused:\n" + intruder.stderrTail());

        for (MemberProcess m : cluster.members()) {
            assertTrue(m.lines().stream().noneMatch(l -> l.members() != null && l.members().contains("intruder")),
                    m.name() + " must never have the intruder in a view: " + ClusterChecks.describe(m.events()));
            assertEquals(List.of("n1", "n2", "n3"), m.lastViewMembers().stream().sorted().toList(), m.name() + "'s view");
        }
    }
}
