package org.mpirunft.membership.internal;

import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.function.Supplier;
import org.jgroups.Address;
import org.jgroups.annotations.GuardedBy;
import org.mpirunft.membership.LoadSource;
import org.mpirunft.membership.NodeLoad;

/**
 * This member's load reports. Decides when its load is worth a message, so that periodic reports
 * stay cheap: when the slots in use changed, when the load average moved by at least 0.1 (it is a
 * one-minute average; finer changes are noise to a scheduler), or when forced (a member joined and
 * does not know our load yet). Numbers the reports so receivers keep the newest. Sends them on the
 * {@link ServiceThread} while the member is joined: periodically, on demand, and the last one to
 * newcomers.
 */
final class LoadReporter {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");
    static final double LOAD_STEP = 0.1;

    private final String name;
    private final LoadSource source;
    private final ServiceThread thread;
    /** The channel while the member is joined; null otherwise. */
    private final Supplier<GroupChannel> joinedChannel;
    @GuardedBy("this") private WireMessage.LoadReport lastReport;
    @GuardedBy("this") private long seq;

    LoadReporter(String nodeName, LoadSource source, ServiceThread thread, Supplier<GroupChannel> joinedChannel) {
        this.name = nodeName;
        this.source = source;
        this.thread = thread;
        this.joinedChannel = joinedChannel;
    }

    /** Sends a report to the group every {@code interval} when one is worth it. */
    ScheduledFuture<?> publishEvery(Duration interval) {
        return thread.every(interval, () -> publish(false));
    }

    /** Sends a report to the group now, changed or not. */
    void publishNow() {
        if (!thread.execute(() -> publish(true))) {
            LOG.log(Level.DEBUG, () -> name + ": not publishing load, the service is closed");
        }
    }

    /** Sends this member's last load report to {@code newcomers}; publishes one to all if there is none yet. */
    void publishTo(List<Address> newcomers) {
        if (!thread.execute(() -> {
            GroupChannel channel = joinedChannel.get();
            if (channel == null) {
                return;
            }
            Optional<WireMessage.LoadReport> last = last();
            if (last.isEmpty()) {
                publish(true);
                return;
            }
            for (Address newcomer : newcomers) {
                channel.send(newcomer, last.get());
            }
        })) {
            LOG.log(Level.DEBUG, () -> name + ": not sending the load to the newcomers, the service is closed");
        }
    }

    /** Runs on the {@link ServiceThread}. */
    private void publish(boolean force) {
        GroupChannel channel = joinedChannel.get();
        if (channel == null) {
            return;
        }
        next(force).ifPresent(report -> channel.send(null, report));
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
