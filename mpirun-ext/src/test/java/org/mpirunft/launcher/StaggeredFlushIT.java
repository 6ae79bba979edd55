package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * A staggered flush on the simulated cluster: the scheduler lets one node at a time
 * ({@code storage.flush-writers: 1}) copy its ranks' parts to shared storage. The launcher's
 * event log shows each node's turn (asked, granted, done) as the leader decided it: no two
 * nodes ever write at once, every node of a committed epoch had its turn, and a node killed in
 * the middle of the run (its turn perhaps under way) does not hold the others up: the job
 * recovers in place and ends with the failure-free bits.
 */
class StaggeredFlushIT {
    @TempDir
    Path dir;

    @Test
    void oneNodeAtATimeCopiesToSharedStorageAndAKilledNodeHoldsNoTurn() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.upWithDaemons(4, 1, HangAndCutIT.daemons(), 1)) {
            String reference = ClusterJob.referenceBits(cluster, dir);

            ClusterJob job = ClusterJob.start(cluster, dir, "flush-" + cluster.name(), "pause");
            job.killStartNodeOf(cluster, 2, 12);
            job.assertEndedWithBits(reference);
            job.assertReplacedOnlyRank(2, "spare1");

            // Replay the turns in the order the scheduler applied them.
            Map<Long, Set<String>> grantedByEpoch = new HashMap<>();
            Set<String> writing = new LinkedHashSet<>();
            long epoch = 0;
            List<String> turns = new ArrayList<>();
            List<Long> committed = new ArrayList<>();
            for (JsonNode event : job.events()) {
                String type = event.get("type").asText();
                if (type.equals("checkpoint") && event.get("phase").asText().equals("committed")) {
                    committed.add(event.get("epoch").asLong());
                }
                if (!type.equals("flush")) {
                    continue;
                }
                long of = event.get("epoch").asLong();
                if (of != epoch) {
                    // A newer epoch; a turn the last one left open went with it (a recovery).
                    epoch = of;
                    writing.clear();
                }
                String node = event.get("node").asText();
                String phase = event.get("phase").asText();
                turns.add(of + ":" + node + ":" + phase);
                if (phase.equals("granted")) {
                    writing.add(node);
                    grantedByEpoch.computeIfAbsent(of, e -> new LinkedHashSet<>()).add(node);
                    assertEquals(1, writing.size(), "at most one node writes at once, but " + writing + " did; turns " + turns);
                } else if (phase.equals("done")) {
                    writing.remove(node);
                }
            }
            assertTrue(committed.size() >= 3, "several epochs committed: " + committed + "\n" + job.eventsText());
            for (long e : committed) {
                assertEquals(4, grantedByEpoch.getOrDefault(e, Set.of()).size(),
                        "every node of committed epoch " + e + " had its turn: " + turns);
            }
        }
    }
}
