package org.mpirunft.launcher.cli;

import java.util.concurrent.Callable;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.launcher.ExitCode;

/** {@code mpirun-ft checkpoint JOB}: has the scheduler order a checkpoint of the job now. */
final class CheckpointCommand implements Callable<Integer> {
    static final String SYNOPSIS = """
            Usage: mpirun-ft checkpoint [OPTIONS] JOB

            Order a checkpoint of JOB (its id, as mpirun-ft status lists it) now, outside its interval.
            """;

    /** The command's common options (socket, verbosity). */
    final RunCommand parent;
    final String job;

    CheckpointCommand(RunCommand parent, String job) {
        this.parent = parent;
        this.job = job;
    }

    @Override
    public Integer call() {
        parent.verbosity.apply(parent.context.err());
        try {
            DaemonOptions.client(parent).checkpointNow(job);
        } catch (DaemonClient.RequestFailedException e) {
            if (e.code() == ErrorCode.NOT_FOUND) {
                throw new DaemonClient.RequestFailedException(ErrorCode.NOT_FOUND,
                        "no job '" + job + "' is known to the daemon (mpirun-ft status lists the jobs)");
            }
            throw e;
        }
        parent.context.out().println("checkpoint of " + job + " ordered");
        return ExitCode.OK.code();
    }
}
