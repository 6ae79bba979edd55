package org.mpirunft.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;

/**
 * Open MPI's launch agent ({@code plm_ssh_agent}): {@code ftd agent}, which has the node's
 * daemon start Open MPI's node daemon tagged with the job. Found next to mpirun-ft: in a
 * distribution, {@code <home>/bin/ftd}; in a source checkout, where {@code <home>} is
 * {@code mpirun-ext}, {@code ../runtime-daemon/bin/ftd}. {@code bin/mpirun-ft} sets the home
 * ({@code -Dmpirunft.home}).
 */
public final class LaunchAgent {
    public static final String HOME_PROPERTY = "mpirunft.home";

    private LaunchAgent() {
    }

    /** The configured agent, else {@code <ftd> agent} found from {@code home}. */
    public static String resolve(Optional<String> configured, Optional<Path> home) {
        if (configured.isPresent()) {
            return configured.get();
        }
        if (home.isEmpty()) {
            throw new InstallationException("no launch agent: mpirun-ft was not started by its bin/mpirun-ft script; give --agent");
        }
        List<Path> candidates = List.of(home.get().resolve("bin/ftd"), home.get().resolve("../runtime-daemon/bin/ftd").normalize());
        for (Path ftd : candidates) {
            if (Files.isExecutable(ftd)) {
                return ftd.toAbsolutePath() + " agent";
            }
        }
        throw new InstallationException("no launch agent: ftd is not at " + candidates.getFirst() + "; give --agent");
    }

    public static Optional<Path> homeFromSystemProperty() {
        return Optional.ofNullable(System.getProperty(HOME_PROPERTY)).filter(s -> !s.isBlank()).map(Paths::get);
    }
}
