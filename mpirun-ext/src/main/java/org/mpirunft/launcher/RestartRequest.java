package org.mpirunft.launcher;

import java.util.Map;
import java.util.Set;

/**
 * A decision to stop the whole job and launch it again from its last committed epoch.
 *
 * @param failureId    the scheduler's failure id, empty when mpirun-ft saw the failure itself
 * @param failedNodes  nodes to leave out of the relaunch
 * @param placement    the scheduler's choice of replacement for some failed nodes (failed to new)
 * @param reason       for the event log and the user
 * @param fallback     true when a pause was impossible (pause mode); false in restart mode
 * @param atNanos      when it was decided ({@link System#nanoTime})
 */
public record RestartRequest(String failureId, Set<String> failedNodes, Map<String, String> placement, String reason,
                             boolean fallback, long atNanos) {
    public RestartRequest {
        failureId = failureId == null ? "" : failureId;
        failedNodes = Set.copyOf(failedNodes);
        placement = Map.copyOf(placement);
    }
}
