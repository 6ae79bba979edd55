package org.mpirunft.launcher.cli;

import java.util.concurrent.Callable;
import org.mpirunft.common.Names;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.ExitCode;

/**
 * {@code mpirun-ft migrate JOB NODE}: has the scheduler move the job's ranks off NODE to spares
 * at their next safe point, their state sent from memory, nobody rolled back. The job's
 * launcher logs the outcome ({@code migration} events); {@code ftd drain NODE} does the same
 * for every job on the node.
 *
 * @param reason why, for the job's event log; empty if none was given
 */
record MigrateCommand(RunCommand parent, String job, String node, String reason) implements Callable<Integer> {
    static final String SYNOPSIS = """
            Usage: mpirun-ft migrate [OPTIONS] JOB NODE

            Move JOB's ranks off NODE to spares of its allocation at the ranks' next safe point,
            without a rollback (a node about to fail; ftd drain NODE does it for every job there).
            Returns once the scheduler ordered it; the job's event log has the outcome.
            """;

    MigrateCommand {
        reason = reason == null ? "" : reason;
    }

    @Override
    public Integer call() {
        parent.verbosity.apply(parent.context.err());
        Names.requireName("JOB", job);
        Names.requireName("NODE", node);
        String answer;
        try {
            answer = DaemonOptions.client(parent).migrate(job, node, reason);
        } catch (DaemonClient.RequestFailedException e) {
            throw DaemonOptions.aboutJob(job, e);
        }
        parent.context.out().println(answer);
        return ExitCode.OK.code();
    }
}
