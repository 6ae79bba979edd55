package org.mpirunft.bridge.internal;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.common.Durations;
import org.mpirunft.common.rank.RankMessage;

/**
 * Where a failure's replacements start. With a daemon, the scheduler's placement: that of the
 * newest pause order that names every lost rank on the node it ran on, or, when none has come yet
 * (ULFM told this rank first), the one the scheduler answers this rank's failure report with.
 * Without a daemon, or when no placement comes within the placement timeout, the configured spare
 * list. The orders themselves, and the wait's state, are the {@link RankView}'s; this is the
 * root's side of the wait. Main thread only.
 */
final class FailurePlacement {
    private static final Logger LOG = Logger.getLogger(FailurePlacement.class.getName());
    /** How long a repeated attempt waits for a placement newer than the one that failed. */
    private static final Duration RETRY_PLACEMENT_WAIT = Duration.ofSeconds(3);

    private final FtConfig config;
    private final String job;
    private final SpawnLauncher launcher;
    /** The node daemon's rank channel; null without a daemon. */
    private final RankChannel channel;
    private final RankView view;

    FailurePlacement(FtConfig config, String job, SpawnLauncher launcher, RankChannel channel, RankView view) {
        this.config = config;
        this.job = job;
        this.launcher = launcher;
        this.channel = channel;
        this.view = view;
    }

    /** The host of each lost rank's replacement, for repair attempt {@code attempt}. */
    Map<Integer, String> hostsFor(int[] lostRanks, int used, int attempt) {
        int rank = view.rank();
        if (channel == null || !channel.isOpen()) {
            view.placedBySpareList();
            return launcher.hostsFor(lostRanks, used, attempt);
        }
        Map<Integer, String> lostOn = new TreeMap<>();
        for (int lost : lostRanks) {
            lostOn.put(lost, view.peers().get(lost).node());
        }
        // A second call in one recovery follows an attempt that failed on the placement it
        // used (the spare may be what failed): it waits for the scheduler's next one, which
        // avoids lost nodes, or, if none comes, tries the same one again (below).
        RankView.PlacementRequest request = view.requestPlacement(lostOn, view.usedPlacement());
        if (request.placed() != null) {
            return request.placed();
        }
        channel.report(new RankMessage.FailureSeen(RankMessage.VERSION, job, rank, lostOn));
        try {
            if (request.failedOrder() != null) {
                // The scheduler's placement was tried and failed. If a spare of it was
                // lost, a newer order comes as soon as the daemons see it; if none comes,
                // the failure was something else (a survivor lost mid-attempt, a slot
                // still held by the failed attempt's replacement), and the same
                // placement is tried again rather than the launch-time spare list.
                try {
                    return view.placedBy(request.answer().get(RETRY_PLACEMENT_WAIT.toMillis(), TimeUnit.MILLISECONDS));
                } catch (TimeoutException sameAgain) {
                    RankMessage.PauseOrder again = request.failedOrder();
                    LOG.info(() -> "rank " + rank + ": no newer placement within " + Durations.format(RETRY_PLACEMENT_WAIT)
                            + "; trying " + again.placement() + " again");
                    return view.placedBy(again);
                }
            }
            return view.placedBy(request.answer().get(config.placementTimeout().toMillis(), TimeUnit.MILLISECONDS));
        } catch (TimeoutException e) {
            if (!launcher.hasSpares()) {
                throw new BridgeException("rank " + rank + ": no placement for ranks " + lostOn.keySet() + " within "
                        + config.placementTimeout() + " and no " + FtConfig.SPARES + " to fall back on");
            }
            LOG.warning(() -> "rank " + rank + ": no placement from the scheduler within " + config.placementTimeout()
                    + "; using " + FtConfig.SPARES);
            return launcher.hostsFor(lostRanks, used, attempt);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BridgeException("rank " + rank + ": interrupted while waiting for a placement", e);
        } catch (ExecutionException e) {
            throw new BridgeException("rank " + rank + ": " + e.getCause().getMessage(), e.getCause());
        } finally {
            view.placementWaitOver();
        }
    }
}
