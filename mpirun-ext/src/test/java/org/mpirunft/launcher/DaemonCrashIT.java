package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * node2's daemon crashes (SIGKILL of its JVM, the node and its rank live on) and a new one starts,
 * as systemd restarts a failed service. The scheduler tells the crash from a node loss (node2's
 * host refuses a connection to the dead daemon's port): it keeps node2's rank, no daemon fences
 * node2, and the new daemon adopts the node's job processes from the handover its predecessor
 * kept current. The job goes on with no pause and no replacement. Then node2 itself is lost:
 * killed (its rank's peers report the loss) or hung (the new daemon's port accepts and says
 * nothing: a host that does not answer); either way the daemons fence the node and the job
 * pauses onto a spare. A hung node that wakes finds itself expelled and kills its rank.
 */
class DaemonCrashIT {
    private static final String[] HOSTS = {"--host", "node1:1,node2:1,node3:1,node4:1,spare1:1,spare2:1", "--spares", "2"};
    /** Long enough for a daemon's crash and restart, and a node loss after it, on a loaded machine. */
    static final ClusterJob.Program PROGRAM = new ClusterJob.Program(1000, 400, 100);
    private static final java.util.regex.Pattern ITER = java.util.regex.Pattern.compile("(?m)^ITER (\\d+)$");

    /**
     * One 4+2 cluster for the class, the lost node revived or healed between tests. The daemons'
     * logs outlive a test, so each test reads only what they wrote since it began ({@link DaemonLogMark}).
     */
    @RegisterExtension
    static final SharedCluster SHARED = new SharedCluster(() -> SimulatedCluster.upWithDaemons(4, 2, HangAndCutIT.daemons()));

    @TempDir
    Path dir;

    @org.junit.jupiter.params.ParameterizedTest(name = "then {0}")
    @org.junit.jupiter.params.provider.ValueSource(strings = {"kill", "hang"})
    void aCrashedDaemonIsNoNodeLossAndItsNodeIsStillFencedWhenItIsLostAfter(String loss) throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        DaemonLogMark logs = DaemonLogMark.now(cluster);
        String reference = ClusterJob.referenceBits(PROGRAM, cluster, dir);
        ClusterJob job = ClusterJob.start(PROGRAM, cluster, dir, "dcrash-" + loss + "-" + cluster.name(), "pause", HOSTS);
        job.await("^ITER 20$");
        int onNode2 = job.rankStartedOn("node2");
        cluster.crashDaemon("node2");
        int afterCrash = ClusterJob.lastIteration(ITER, job.output());
        job.await("^ITER " + (afterCrash + 40) + "$");
        assertTrue(job.eventTypes().stream().noneMatch(t -> t.equals("failure") || t.equals("decision") || t.equals("pause")),
                "a daemon crash is no failure: " + job.eventsText());
        String node2Log = logs.since("node2");
        assertTrue(node2Log.contains("adopted 1 job process tree(s)"), "the new daemon adopted the node's job processes: "
                + node2Log.lines().filter(l -> l.contains("adopt")).toList());
        for (String node : List.of("head", "node1", "node3", "node4")) {
            String survivor = logs.since(node);
            assertTrue(!survivor.contains("fenced node2 off the MPI runtime"), node + " did not fence node2 for its daemon's crash");
        }

        if (loss.equals("kill")) {
            cluster.kill("node2");
        } else {
            cluster.hang("node2");
            job.await("^\\[mpirun-ft\\] recovered replaced=\\[" + onNode2 + "\\]", 90);
            cluster.heal("node2");
            FakeMpirun.waitUntil(15_000, "node2's daemon killed the job's processes after waking", () -> cluster.processesOn("node2")
                    .stream().noneMatch(FailureOrderIT::isRankOrNodeDaemon));
        }
        String output = job.assertEndedWithBits(reference);
        JsonNode resume = FailureOrderIT.first(job.events(), "resume").orElseThrow(() -> new AssertionError(job.eventsText()));
        assertEquals(List.of(onNode2), List.of(resume.get("replacedRanks").get(0).asInt()), resume.toString());
        var where = job.whereRanksRan();
        assertTrue(where.get("END" + onNode2)[1].startsWith("spare"), "rank " + onNode2 + " ended on a spare: " + output);
        FailureOrderIT.assertNoRestart(job);
        boolean fenced = false;
        for (String node : List.of("head", "node1", "node3", "node4")) {
            fenced |= logs.since(node).contains("fenced node2 off the MPI runtime");
        }
        assertTrue(fenced, "once node2 itself was lost, the daemons fenced it");
        System.out.println("DaemonCrashIT: node2's daemon crashed at ITER " + afterCrash + " with no failure; node2 lost (" + loss + ") later, rank "
                + onNode2 + " resumed at ITER " + resume.get("iteration").asLong() + " on " + where.get("END" + onNode2)[1]);
    }

    /**
     * The daemon of the head node, where mpirun and mpirun-ft run, crashes and a new one starts. No
     * rank runs there, but the node holds the job's mpirun: taken for a lost node, it would be fenced
     * and the whole job with it. The scheduler probes the host instead, finds it up, and keeps the
     * node; the new daemon adopts mpirun from the handover, mpirun-ft subscribes again, and the job
     * ends with no failure, no pause and no restart.
     */
    @org.junit.jupiter.api.Test
    void theDaemonOfMpirunsNodeCrashesAndTheJobGoesOn() throws Exception {
        SimulatedCluster cluster = SHARED.cluster();
        DaemonLogMark logs = DaemonLogMark.now(cluster);
        String reference = ClusterJob.referenceBits(PROGRAM, cluster, dir);
        ClusterJob job = ClusterJob.start(PROGRAM, cluster, dir, "hcrash-" + cluster.name(), "pause", HOSTS);
        job.await("^ITER 20$");
        cluster.crashDaemon("head");
        int afterCrash = ClusterJob.lastIteration(ITER, job.output());
        job.await("^ITER " + (afterCrash + 40) + "$");
        String headLog = logs.since("head");
        assertTrue(headLog.contains("and 1 mpirun(s) of the previous daemon"), "the head's new daemon adopted mpirun: "
                + headLog.lines().filter(l -> l.contains("adopt")).toList());
        job.assertEndedWithBits(reference);
        assertTrue(job.eventTypes().stream().noneMatch(t -> t.equals("failure") || t.equals("decision") || t.equals("pause")),
                "a daemon crash on mpirun's node is no failure: " + job.eventsText());
        FailureOrderIT.assertNoRestart(job);
        for (String node : List.of("node1", "node2", "node3", "node4", "spare1", "spare2")) {
            String log = logs.since(node);
            assertTrue(!log.contains("fenced head off the MPI runtime"), node + " did not fence the head node for its daemon's crash");
        }
        System.out.println("DaemonCrashIT: the head node's daemon crashed at ITER " + afterCrash + "; the job ended with no failure");
    }
}
