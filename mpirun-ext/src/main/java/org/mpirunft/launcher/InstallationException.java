package org.mpirunft.launcher;

/** Something mpirun-ft runs is missing: Open MPI's mpirun, or the launch agent ({@code ftd agent}). */
public final class InstallationException extends LauncherException {
    private static final long serialVersionUID = 1L;

    public InstallationException(String message) {
        super(message);
    }
}
