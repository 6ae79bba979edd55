package org.mpirunft.launcher.cli;

import java.util.concurrent.Callable;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.ExitCode;

/**
 * {@code mpirun-ft checkpoint JOB}: has the scheduler order a checkpoint of the job now.
 *
 * @param parent the command's common options (socket, verbosity)
 */
record CheckpointCommand(RunCommand parent, String job) implements Callable<Integer> {
    static final String SYNOPSIS = """
            Usage: mpirun-ft checkpoint [OPTIONS] JOB

            Order a checkpoint of JOB (its id, as mpirun-ft status lists it) now, outside its interval.
            """;

    @Override
    public Integer call() {
        parent.verbosity.apply(parent.context.err());
        try {
            DaemonOptions.client(parent).checkpointNow(job);
        } catch (DaemonClient.RequestFailedException e) {
            throw DaemonOptions.aboutJob(job, e);
        }
        parent.context.out().println("checkpoint of " + job + " ordered");
        return ExitCode.OK.code();
    }
}
