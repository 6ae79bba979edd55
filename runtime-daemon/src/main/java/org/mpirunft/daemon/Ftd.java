package org.mpirunft.daemon;

import org.mpirunft.daemon.internal.Daemon;
import org.mpirunft.daemon.internal.HostedScheduler;
import org.mpirunft.daemon.internal.SchedulerPort;

/**
 * The node daemon, {@code ftd}: one per node. It joins the group of daemons, hosts the scheduler,
 * answers local clients on its control socket and other daemons on its peer port, starts Open
 * MPI's node daemon when the launcher asks, and kills its node's job processes when the group
 * expelled it (self-fencing), so a node declared dead stays dead for the job.
 *
 * <pre>{@code
 * try (Ftd ftd = Ftd.start(FtdConfigReader.read(Path.of("/etc/mpirun-ft/ftd.yaml")))) {
 *     ...                                   // until SIGTERM
 * }
 * }</pre>
 */
public final class Ftd implements AutoCloseable {
    private final Daemon daemon;

    private Ftd(Daemon daemon) {
        this.daemon = daemon;
    }

    public static Ftd start(FtdConfig config) {
        Daemon daemon = new Daemon(config, membership -> config.scheduler()
                .map(file -> (SchedulerPort) HostedScheduler.create(file, membership)).orElse(null));
        try {
            daemon.start();
        } catch (RuntimeException e) {
            daemon.close();
            throw e;
        }
        return new Ftd(daemon);
    }

    /** Called, once, when a client or a peer asks this daemon to restart; whoever runs it does. */
    public void onRestartRequested(Runnable hook) {
        daemon.core().onRestartRequested(hook);
    }

    public boolean fenced() {
        return daemon.core().fenced();
    }

    @Override
    public void close() {
        daemon.close();
    }
}
