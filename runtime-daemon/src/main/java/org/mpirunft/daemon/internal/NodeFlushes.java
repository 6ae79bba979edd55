package org.mpirunft.daemon.internal;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which of this node's ranks ended their copy of each job's newest epoch to shared storage: the
 * node's turn in a staggered flush ends with the last of them. Epochs commit in order, so one
 * epoch per job is enough; a newer epoch replaces it.
 */
final class NodeFlushes {
    private record Done(long epoch, Set<Integer> ranks) {
    }

    private final Map<String, Done> byJob = new HashMap<>();

    /** Rank {@code rank} ended its copy; true once, when it is the last of the {@code ranksHere} ranks of the job on this node. */
    synchronized boolean rankDone(String job, long epoch, int rank, int ranksHere) {
        Done done = byJob.get(job);
        if (done == null || done.epoch() < epoch) {
            done = new Done(epoch, new HashSet<>());
            byJob.put(job, done);
        } else if (done.epoch() > epoch) {
            return false;
        }
        return done.ranks().add(rank) && ranksHere > 0 && done.ranks().size() == ranksHere;
    }

    synchronized void forget(String job) {
        byJob.remove(job);
    }
}
