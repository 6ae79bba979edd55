package org.mpirunft.launcher.cli;

import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.protocol.ErrorCode;

/** Which daemon a subcommand talks to ({@link RunCommand#socketPath()}), and how the user is told what it refused. */
final class DaemonOptions {
    private DaemonOptions() {
    }

    static DaemonClient client(RunCommand parent) {
        return parent.context.daemons().apply(parent.socketPath());
    }

    /**
     * A request about {@code job} that the daemon refused, as the user is told it: a job the
     * daemon does not know, with where the known ones are listed; any other refusal as it is.
     */
    static DaemonClient.RequestFailedException aboutJob(String job, DaemonClient.RequestFailedException failure) {
        if (failure.code() == ErrorCode.NOT_FOUND) {
            return new DaemonClient.RequestFailedException(ErrorCode.NOT_FOUND,
                    "no job '" + job + "' is known to the daemon (mpirun-ft status lists the jobs)");
        }
        return failure;
    }
}
