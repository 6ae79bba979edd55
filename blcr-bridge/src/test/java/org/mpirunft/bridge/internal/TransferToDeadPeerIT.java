package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.testkit.MpiJobs;
import org.mpirunft.testkit.OutputWatcher;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * A rank whose part is on its way to a holder that dies ends its wait with PROC_FAILED through
 * {@link IdleWait#awaitAll}, which the recovery answers; Open MPI's {@code MPI_Waitall} ends
 * with {@code MPI_ERR_IN_STATUS} (or, as seen in longer jobs, not at all): the checkpoint
 * levels' transfers must not wait in it.
 */
class TransferToDeadPeerIT {
    private static final Pattern ENDED = Pattern.compile("^ENDED ms=(\\d+) error=(\\S+)");

    private static Optional<Matcher> run(SimulatedCluster cluster, String wait, Duration bound) throws Exception {
        Process job = cluster.start("head", MpiJobs.mpirun(true, "node1:1,node2:1,node3:1", 3,
                MpiJobs.java(List.of(), TransferToDeadPeerRank.class, wait)));
        OutputWatcher output = OutputWatcher.watch(job.getInputStream(), wait);
        try {
            return output.await(ENDED, bound);
        } finally {
            job.destroyForcibly();
            job.waitFor();
        }
    }

    @Test
    void aSendToAHolderThatDiedEndsWithProcFailedInsteadOfWaitingForGood() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(3, 0)) {
            Matcher ended = run(cluster, "await-all", Duration.ofSeconds(60))
                    .orElseThrow(() -> new AssertionError("IdleWait.awaitAll did not end"));
            assertEquals(Integer.toString(Ulfm.ERR_PROC_FAILED), ended.group(2), ended.group());
            assertTrue(Long.parseLong(ended.group(1)) < 10_000, "ended within seconds: " + ended.group());
            // What the transfers waited in before: MPI_Waitall either does not end or ends with
            // MPI_ERR_IN_STATUS, which the recovery does not answer (here it ends at once with it).
            Optional<Matcher> waitall = run(cluster, "waitall", Duration.ofSeconds(20));
            waitall.ifPresent(m -> assertFalse(Ulfm.isFailureClass(Integer.parseInt(m.group(2))),
                    "MPI_Waitall gave an error the recovery answers: " + m.group()));
        }
    }
}
