package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.OutputWatcher;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * A rank that waits for a late peer through {@link IdleWait} uses a small part of the CPU time
 * that Open MPI's blocking wait uses for the same wait, on the same job and machine.
 */
class IdleWaitIT {
    private static final Pattern IDLE = Pattern.compile("^IDLE wall_ms=(\\d+) cpu_ms=(\\d+)");
    private static final Pattern BLOCKING = Pattern.compile("^BLOCKING wall_ms=(\\d+) cpu_ms=(\\d+)");
    private static final Duration BOUND = Duration.ofSeconds(60);

    @Test
    void waitingForALatePeerLeavesTheCoreIdle() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(2, 0)) {
            Process job = cluster.start("head", MpiJobs.mpirun(true, "node1:1,node2:1", 2, MpiJobs.java(List.of(), IdleWaitRank.class)));
            OutputWatcher output = OutputWatcher.watch(job.getInputStream(), "idlewait");
            Matcher idle = output.await(IDLE, BOUND).orElseThrow(() -> new AssertionError("no IDLE line:\n" + output.text()));
            Matcher blocking = output.await(BLOCKING, BOUND).orElseThrow(() -> new AssertionError("no BLOCKING line:\n" + output.text()));
            assertTrue(job.waitFor(BOUND.toSeconds(), TimeUnit.SECONDS), "the job ends");
            assertEquals(0, job.exitValue(), output.text());
            long idleWall = Long.parseLong(idle.group(1));
            long idleCpu = Long.parseLong(idle.group(2));
            long blockingCpu = Long.parseLong(blocking.group(2));
            System.out.printf("idle wait: %d ms of CPU in %d ms; blocking wait: %s ms of CPU in %s ms%n", idleCpu, idleWall,
                    blockingCpu, blocking.group(1));
            assertTrue(idleWall >= 1000, "rank 0 waited for the late rank: " + idle.group());
            assertTrue(idleCpu * 10 < idleWall, "the idle wait used under a tenth of its time on the CPU: " + idle.group());
            assertTrue(idleCpu * 3 < blockingCpu, "the idle wait used under a third of the blocking wait's CPU: " + idle.group()
                    + ", " + blocking.group());
        }
    }
}
