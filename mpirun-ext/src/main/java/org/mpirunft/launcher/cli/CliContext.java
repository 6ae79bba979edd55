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
 * @param siteConfig the site's config file, under {@code --config}'s: what the deployment wrote
 */
public record CliContext(PrintStream out, PrintStream err, InputStream in, Map<String, String> env,
                         Function<Path, DaemonClient> daemons, Optional<Path> home, Clock clock, Optional<Path> siteConfig) {
    /** Where a deployment writes the site's settings (the Ansible role {@code ftd}; the simulated cluster's nodes). */
    public static final Path SITE_CONFIG = Path.of("/etc/mpirun-ft/mpirun-ft.yaml");
    /** Names another site file, which must then exist. */
    public static final String SITE_CONFIG_VARIABLE = "MPIRUN_FT_CONFIG";

    public CliContext {
        env = Map.copyOf(env);
    }

    /** Without a site file: tests, whatever the machine they run on has in /etc. */
    public CliContext(PrintStream out, PrintStream err, InputStream in, Map<String, String> env,
                      Function<Path, DaemonClient> daemons, Optional<Path> home, Clock clock) {
        this(out, err, in, env, daemons, home, clock, Optional.empty());
    }

    /** The real one: this process's streams, environment, home and site file. */
    public static CliContext system() {
        return new CliContext(System.out, System.err, System.in, System.getenv(), DaemonClient::new,
                LaunchAgent.homeFromSystemProperty(), Clock.systemUTC(), siteConfigOf(System.getenv(), SITE_CONFIG));
    }

    /**
     * {@code $MPIRUN_FT_CONFIG} if set (read even if missing, so that a wrong name is an error, not
     * silence), else {@code standard} if it exists.
     */
    static Optional<Path> siteConfigOf(Map<String, String> env, Path standard) {
        String named = env.get(SITE_CONFIG_VARIABLE);
        if (named != null && !named.isBlank()) {
            return Optional.of(Path.of(named));
        }
        return java.nio.file.Files.isRegularFile(standard) ? Optional.of(standard) : Optional.empty();
    }
}
