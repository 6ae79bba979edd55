package org.mpirunft.launcher.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.launcher.LaunchAgent;

/**
 * What the command line works with, so that tests can capture its output and give it their own
 * environment and daemon. The job's output goes to {@code out} and {@code err} as well.
 *
 * @param in      forwarded to mpirun (rank 0's stdin); null for none
 * @param env     the environment ({@code MPIRUN_FT_SOCKET}, {@code MPI_HOME})
 * @param daemons a client for a control socket
 * @param home    the distribution (or source checkout) mpirun-ft runs from, to find {@code ftd}
 */
public record CliContext(PrintStream out, PrintStream err, InputStream in, Map<String, String> env,
                         Function<Path, DaemonClient> daemons, Optional<Path> home, Clock clock) {
    public CliContext {
        env = Map.copyOf(env);
    }

    /** The real one: this process's streams, environment and home. */
    public static CliContext system() {
        return new CliContext(System.out, System.err, System.in, System.getenv(), DaemonClient::new,
                LaunchAgent.homeFromSystemProperty(), Clock.systemUTC());
    }
}
