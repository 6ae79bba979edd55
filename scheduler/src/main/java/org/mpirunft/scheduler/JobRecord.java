package org.mpirunft.scheduler;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One job in the job table.
 *
 * @param launcher          the node whose daemon hosts the job's mpirun-ft: its scheduler hands
 *                          the job's commands to the launcher
 * @param rankNodes         node of each rank, by rank number
 * @param committedEpoch    the job's recovery line
 * @param orderedEpoch      the last checkpoint epoch the scheduler ordered
 * @param lastOrderAtMillis wall-clock time of that order (of the registration before the first),
 *                          so a new leader keeps the rhythm
 * @param recovery          the recovery in progress, if any
 * @param stopReason        set once the job was stopped for good
 */
public record JobRecord(String job, String launcher, List<String> rankNodes, long committedEpoch, long orderedEpoch,
                        long lastOrderAtMillis, Optional<Recovery> recovery, Optional<String> stopReason) {
    public JobRecord {
        rankNodes = List.copyOf(rankNodes);
    }

    /** A recovery: which failure, which ranks were lost, and where they go. */
    public record Recovery(String failureId, List<Integer> lostRanks, Map<Integer, String> placement) {
        public Recovery {
            lostRanks = List.copyOf(lostRanks);
            placement = Map.copyOf(placement);
        }
    }

    public boolean stopped() {
        return stopReason.isPresent();
    }

    JobRecord withRecovery(Optional<Recovery> newRecovery, List<String> newRankNodes) {
        return new JobRecord(job, launcher, newRankNodes, committedEpoch, orderedEpoch, lastOrderAtMillis, newRecovery, stopReason);
    }

    JobRecord withOrder(long epoch, long atMillis) {
        return new JobRecord(job, launcher, rankNodes, committedEpoch, epoch, atMillis, recovery, stopReason);
    }

    JobRecord withCommitted(long epoch) {
        return new JobRecord(job, launcher, rankNodes, Math.max(committedEpoch, epoch), orderedEpoch, lastOrderAtMillis, recovery,
                stopReason);
    }

    JobRecord stoppedBecause(String reason) {
        return new JobRecord(job, launcher, rankNodes, committedEpoch, orderedEpoch, lastOrderAtMillis, Optional.empty(),
                Optional.of(reason));
    }
}
