package org.mpirunft.daemon;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.membership.MembershipConfig;

/**
 * A daemon stopped with SIGSTOP for longer than the failure timeout is removed from the group.
 * When it runs again it learns it was expelled and kills its node's job processes, so a node
 * declared dead cannot come back and disturb the job that replaced it.
 */
class SelfFencingIT {
    /** Well past the FAST profile's hang detection (heartbeat timeout plus verification). */
    private static final Duration STOPPED_FOR = MembershipConfig.builder(MembershipConfig.Profile.FAST).clusterName("x")
            .discovery(org.mpirunft.membership.Discovery.staticHosts(List.of(new java.net.InetSocketAddress("127.0.0.1", 1))))
            .clusterSecret("0123456789abcdef0123").build().hangDetectionTime().multipliedBy(3);
    private static final Duration FENCE_BOUND = Duration.ofSeconds(30);

    @TempDir
    Path directory;

    @Test
    void stoppedDaemonFencesItsNodeWhenItRunsAgain() throws Exception {
        try (LoopbackDaemons daemons = LoopbackDaemons.start(directory, 3)) {
            DaemonClient third = daemons.client(2);
            third.launch(daemons.name(2), "jobf", List.of("prted", "--daemonize"));
            LoopbackDaemons.waitUntil(Duration.ofSeconds(10), () -> jobProcesses(third).size() == 1,
                    "one job process on d3: " + third.status().processes());
            long jobPid = jobProcesses(third).getFirst().pid();

            daemons.process(2).signal("STOP");
            long stoppedAt = System.nanoTime();
            DaemonClient first = daemons.client(0);
            LoopbackDaemons.waitUntil(STOPPED_FOR.plusSeconds(20), () -> first.status().members().size() == 2,
                    "the group removes the stopped daemon");
            long removedMillis = (System.nanoTime() - stoppedAt) / 1_000_000;
            Thread.sleep(Math.max(0, STOPPED_FOR.toMillis() - removedMillis));
            assertTrue(ProcessHandle.of(jobPid).map(ProcessHandle::isAlive).orElse(false),
                    "the job process lives on while its daemon is stopped (nobody else may kill it)");

            daemons.process(2).signal("CONT");
            long resumedAt = System.nanoTime();
            LoopbackDaemons.waitUntil(FENCE_BOUND, () -> !running(jobPid),
                    "the resumed daemon kills its job process; log:\n" + daemons.log(2));
            long fencedMillis = (System.nanoTime() - resumedAt) / 1_000_000;
            System.out.printf("self-fencing: removed from the group %d ms after SIGSTOP; job process killed %d ms after SIGCONT%n",
                    removedMillis, fencedMillis);
            assertTrue(daemons.log(2).contains("expelled from the group"), "the daemon says why it fenced:\n" + daemons.log(2));
            assertEquals(List.of(), jobProcesses(third), "no job process left on the fenced node");
            assertTrue(daemons.process(2).isAlive(), "fencing kills the job, not the daemon");
        }
    }

    private static List<ControlReply.ProcessStatus> jobProcesses(DaemonClient client) {
        return client.status().processes().stream().filter(p -> p.command().equals("sleep")).toList();
    }

    private static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException gone) {
            return false;
        }
    }
}
