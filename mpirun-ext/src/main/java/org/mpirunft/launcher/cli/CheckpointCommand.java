package org.mpirunft.launcher.cli;

import java.util.concurrent.Callable;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.launcher.ExitCode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

/** {@code mpirun-ft checkpoint JOB}: has the scheduler order a checkpoint of the job now. */
@Command(name = "checkpoint", mixinStandardHelpOptions = true,
        description = "Order a checkpoint of JOB now, outside its interval.")
final class CheckpointCommand implements Callable<Integer> {
    @ParentCommand
    RunCommand parent;

    @Parameters(paramLabel = "JOB", description = "The job's id, as mpirun-ft status lists it.")
    String job;

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
