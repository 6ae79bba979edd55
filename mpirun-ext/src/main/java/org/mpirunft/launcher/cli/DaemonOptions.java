package org.mpirunft.launcher.cli;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Optional;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.LaunchSettings;

/** Which daemon a subcommand talks to: {@code --socket}, else {@code MPIRUN_FT_SOCKET}, else the default. */
final class DaemonOptions {
    private DaemonOptions() {
    }

    static DaemonClient client(RunCommand parent) {
        Path socket = parent.socket != null ? parent.socket
                : Optional.ofNullable(parent.context.env().get("MPIRUN_FT_SOCKET")).filter(v -> !v.isBlank()).map(Paths::get)
                        .orElse(LaunchSettings.DEFAULT_SOCKET);
        return parent.context.daemons().apply(socket);
    }
}
