package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.rank.WarmSpareProcess;

class NodeAgentTest {
    @TempDir
    Path dir;

    /** Real processes: this JVM's children are the agent's job processes. */
    @Test
    void anIdleWarmSpareIsNoSlotInUseUntilItIsAdmittedToTheRankChannel() throws Exception {
        NodeAgent agent = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"));
        int before = agent.slotsInUse();
        ProcessBuilder rankBuilder = new ProcessBuilder("sleep", "60");
        rankBuilder.environment().put(NodeAgent.JOB_VARIABLE, "j");
        ProcessBuilder spareBuilder = new ProcessBuilder("sleep", "60");
        spareBuilder.environment().put(NodeAgent.JOB_VARIABLE, "j");
        spareBuilder.environment().put(WarmSpareProcess.VARIABLE, "1");
        Process rank = rankBuilder.start();
        Process spare = spareBuilder.start();
        try {
            assertEquals(before + 1, agent.slotsInUse(), "the rank counts, the idle warm spare does not");
            assertEquals(Optional.empty(), agent.rankRefusal(spare.pid(), System.getProperty("user.name"), "j"));
            assertEquals(before + 2, agent.slotsInUse(), "a warm spare that took a rank speaks on the rank channel, and counts");
        } finally {
            rank.destroyForcibly().waitFor();
            spare.destroyForcibly().waitFor();
        }
        assertEquals(before, agent.slotsInUse());
    }
}
