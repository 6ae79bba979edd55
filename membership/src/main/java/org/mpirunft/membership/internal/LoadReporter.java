package org.mpirunft.membership.internal;

import java.lang.System.Logger.Level;
import java.util.Optional;
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.LoadSource;
import org.mpirunft.membership.NodeLoad;

/**
 * Decides when this member's load is worth a message, so that periodic reports stay cheap: when
 * the slots in use changed, when the load average moved by at least 0.1 (it is a one-minute
 * average; finer changes are noise to a scheduler), or when forced (a member joined and does not
 * know our load yet). Numbers the reports so receivers keep the newest.
 */
final class LoadReporter {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");
    static final double LOAD_STEP = 0.1;

    private final String name;
    private final LoadSource source;
    @GuardedBy("this") private WireMessage.LoadReport lastReport;
    @GuardedBy("this") private long seq;

    LoadReporter(String nodeName, LoadSource source) {
        this.name = nodeName;
        this.source = source;
    }

    /** The report to send now, if any. */
    synchronized Optional<WireMessage.LoadReport> next(boolean force) {
        NodeLoad load;
        try {
            load = source.sample();
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> name + ": load source failed: " + e);
            return Optional.empty();
        }
        if (!force && lastReport != null && lastReport.slotsInUse() == load.slotsInUse()
                && lastReport.drain().equals(load.drain())
                && Math.abs(lastReport.loadAverage() - load.loadAverage()) < LOAD_STEP) {
            return Optional.empty();
        }
        lastReport = new WireMessage.LoadReport(WireMessage.VERSION, ++seq, load.loadAverage(), load.slotsInUse(), load.drain());
        return Optional.of(lastReport);
    }

    /**
     * The last report {@link #next} gave, which every member that was there has: what a newcomer
     * is sent, the same report under the same number, so that the group's members agree.
     */
    synchronized Optional<WireMessage.LoadReport> last() {
        return Optional.ofNullable(lastReport);
    }

    /** A new incarnation starts without a last report. */
    synchronized void reset() {
        lastReport = null;
    }
}
