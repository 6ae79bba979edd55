package org.mpirunft.launcher.cli;

import org.mpirunft.daemon.DaemonClient;

/** Which daemon a subcommand talks to: {@link RunCommand#socketPath()}. */
final class DaemonOptions {
    private DaemonOptions() {
    }

    static DaemonClient client(RunCommand parent) {
        return parent.context.daemons().apply(parent.socketPath());
    }
}
