package org.mpirunft.bridge.internal;

import java.util.logging.Level;
import java.util.logging.Logger;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.storage.PartWrite;

/**
 * The program's {@link RankListener} as the library calls it: an exception the listener throws
 * is logged and goes no further, so that a faulty listener fails no checkpoint write, no
 * recovery and no spare's release.
 */
final class GuardedListener implements RankListener {
    private static final Logger LOG = Logger.getLogger(GuardedListener.class.getName());

    private final RankListener listener;

    private GuardedListener(RankListener listener) {
        this.listener = listener;
    }

    static RankListener of(RankListener listener) {
        return listener == RankListener.NONE ? listener : new GuardedListener(listener);
    }

    @Override
    public void partWriteStarting(PartWrite.Op op, int rank, long epoch) {
        guarded("partWriteStarting", () -> listener.partWriteStarting(op, rank, epoch));
    }

    @Override
    public void partWritten(PartWrite write) {
        guarded("partWritten", () -> listener.partWritten(write));
    }

    @Override
    public void stateTransferred(StateTransfer transfer) {
        guarded("stateTransferred", () -> listener.stateTransferred(transfer));
    }

    @Override
    public void spareReleased(SpareRelease release) {
        guarded("spareReleased", () -> listener.spareReleased(release));
    }

    private static void guarded(String method, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "the program's RankListener threw from " + method + "; ignored", e);
        }
    }
}
