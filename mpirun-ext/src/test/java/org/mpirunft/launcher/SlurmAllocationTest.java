package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SlurmAllocationTest {
    @Test
    void expandsSlurmHostListsInOrderKeepingLeadingZeros() {
        assertEquals(List.of("node1", "node2", "node3", "node7", "spare01", "spare02", "head"),
                SlurmAllocation.expand("node[1-3,7],spare[01-02],head"));
        assertEquals(List.of("r1n1", "r1n2", "r2n1", "r2n2"), SlurmAllocation.expand("r[1-2]n[1-2]"));
        assertEquals(List.of("node098", "node099", "node100"), SlurmAllocation.expand("node[098-100]"));
        assertEquals(List.of("a"), SlurmAllocation.expand(" a "));
    }

    @Test
    void refusesAHostListItCannotReadInOneLineNamingTheVariable() {
        for (String bad : List.of("node[1-", "node1]", "node[3-1]", "node[a]", "node1,,node2", "")) {
            BadSettingException e = assertThrows(BadSettingException.class, () -> SlurmAllocation.expand(bad), bad);
            assertEquals(true, e.getMessage().contains("SLURM_JOB_NODELIST") && !e.getMessage().contains("\n"), e.getMessage());
        }
    }

    @Test
    void takesTheNodesAndTheirTasksFromTheEnvironment() {
        Map<String, String> env = Map.of("SLURM_JOB_ID", "42", "SLURM_JOB_NODELIST", "node[1-4],spare[1-2]",
                "SLURM_TASKS_PER_NODE", "2(x3),1(x3)", "PATH", "/bin");
        SlurmAllocation allocation = SlurmAllocation.of(env).orElseThrow();
        assertEquals("42", allocation.jobId());
        assertEquals(List.of(new HostSlot("node1", 2), new HostSlot("node2", 2), new HostSlot("node3", 2), new HostSlot("node4", 1),
                new HostSlot("spare1", 1), new HostSlot("spare2", 1)), allocation.hosts());
        assertEquals(List.of("SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_TASKS_PER_NODE"), SlurmAllocation.variables(env));
        assertEquals(List.of(new HostSlot("n1", 1), new HostSlot("n2", 1)),
                SlurmAllocation.of(Map.of("SLURM_JOBID", "7", "SLURM_NODELIST", "n[1-2]")).orElseThrow().hosts(), "old names, one task each");
        assertEquals(Optional.empty(), SlurmAllocation.of(Map.of("SLURM_JOB_NODELIST", "n1")), "no job id: no allocation");
        assertThrows(BadSettingException.class, () -> SlurmAllocation.of(Map.of("SLURM_JOB_ID", "1", "SLURM_JOB_NODELIST", "n[1-3]",
                "SLURM_TASKS_PER_NODE", "1(x2)")));
    }
}
