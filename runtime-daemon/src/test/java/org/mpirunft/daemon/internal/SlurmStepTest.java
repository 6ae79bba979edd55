package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SlurmStepTest {
    @Test
    void runsTheNodeDaemonInTheForegroundAsAnExternalLauncherStepOnThisNodeOnly() {
        List<String> argv = SlurmStep.of("42").srunArgv("node3", List.of("/usr/bin/prted", "--daemonize", "--prtemca", "ess", "env"));
        assertEquals("srun", argv.getFirst());
        assertTrue(argv.containsAll(List.of("--jobid=42", "--external-launcher", "--nodes=1", "--ntasks=1", "--nodelist=node3",
                "--no-kill", "--kill-on-bad-exit=0", "--mpi=none")), () -> "srun's options: " + argv);
        assertFalse(argv.contains("--daemonize"), "a task that daemonized would leave its step: " + argv);
        assertEquals(List.of("/usr/bin/prted", "--prtemca", "ess", "env"), argv.subList(argv.indexOf("/usr/bin/prted"), argv.size()));
    }

    @Test
    void refusesAnythingButASlurmJobIdInOneLine() {
        for (String bad : List.of("", "12;rm -rf /", "--jobid=1", "1 2", "12.0")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SlurmStep.of(bad), bad);
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
            assertTrue(e.getMessage().contains("is not a Slurm job ID"), e.getMessage());
        }
    }

    @Test
    void aLaunchOutsideSlurmIsWordedAsBeforeSoThatAnEarlierDaemonStillReadsIt() {
        String plain = org.mpirunft.common.JsonLines.encode(new org.mpirunft.daemon.protocol.PeerMessage.StartNodeDaemon(
                1, "j", List.of("prted"), org.mpirunft.common.JobOwner.ROOT, ""));
        assertFalse(plain.contains("slurmJob"), plain);
        String inSlurm = org.mpirunft.common.JsonLines.encode(new org.mpirunft.daemon.protocol.ControlRequest.Launch(
                1, "node1", "j", List.of("prted"), "42"));
        assertEquals("42", ((org.mpirunft.daemon.protocol.ControlRequest.Launch) org.mpirunft.common.JsonLines.decode(inSlurm,
                org.mpirunft.daemon.protocol.ControlRequest.class)).slurmJob(), inSlurm);
        String older = plain.replace(",\"slurmJob\":\"\"", "");
        assertEquals("", ((org.mpirunft.daemon.protocol.PeerMessage.StartNodeDaemon) org.mpirunft.common.JsonLines.decode(older,
                org.mpirunft.daemon.protocol.PeerMessage.class)).slurmJob(), "absent from an older daemon's request");
    }

    @Test
    void eachLaunchHasItsOwnToken() {
        assertNotEquals(SlurmStep.of("7").token(), SlurmStep.of("7").token());
        assertEquals(32, SlurmStep.of("7").token().length());
    }

    @Test
    void aProcessWithTheTokenButNoSlurmstepdParentIsNotTheStep() throws Exception {
        SlurmStep step = SlurmStep.of("7");
        // Our own child carries the token but is no step's task: it must not be taken for one.
        ProcessBuilder builder = new ProcessBuilder("sleep", "30");
        builder.environment().put(SlurmStep.TOKEN_VARIABLE, step.token());
        Process impostor = builder.start();
        Process srun = new ProcessBuilder("true").start();
        try {
            srun.waitFor();
            assertEquals(Optional.empty(), step.awaitTask(srun, Duration.ofSeconds(2)));
        } finally {
            impostor.destroyForcibly();
        }
    }
}
