package org.mpirunft.launcher;

import org.mpirunft.common.BadValueException;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.protocol.ErrorCode;

/**
 * mpirun-ft's exit codes. A job that ran exits with the job's real status: 0, or the program's
 * own non-zero status as mpirun reports it, or {@link #RANKS_LOST} / {@link #JOB_STOPPED} when
 * the evidence says so whatever mpirun's code. Every other code says why mpirun-ft could not run
 * the job. They follow sysexits.h where one fits; a program that itself exits with one of these
 * numbers is indistinguishable, as with any launcher.
 */
public enum ExitCode {
    OK(0),
    /** A bad option or value, a missing program: a usage error. */
    USAGE(64),
    /** The config file ({@code --config}) cannot be read or has a bad key or value. */
    CONFIG(65),
    /** The daemon does not know the job ({@code mpirun-ft checkpoint JOB}). */
    JOB_NOT_FOUND(67),
    /** No node daemon answers on the control socket. */
    DAEMON_UNREACHABLE(69),
    /** A defect of mpirun-ft; the message says what. */
    INTERNAL(70),
    /** Open MPI's mpirun or the launch agent cannot be found or started. */
    INSTALLATION(72),
    /** The checkpoint directory cannot be created or written. */
    CHECKPOINT_DIR(73),
    /** Not enough spare nodes, at launch (for {@code --spares}) or to replace a failed node. */
    NO_SPARE(75),
    /** The daemon refused a request (it is fenced, or a peer daemon did not answer). */
    DAEMON_REFUSED(76),
    /** The job lost ranks and did not recover them, even if mpirun returned 0. */
    RANKS_LOST(80),
    /** The scheduler stopped the job; its checkpoints are kept, so a launch with the same --job resumes it. */
    JOB_STOPPED(81),
    /** Interrupted (SIGINT, SIGTERM); the job was stopped. */
    INTERRUPTED(130);

    private final int code;

    ExitCode(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** The exit code for an error that ended mpirun-ft (null: {@link #INTERNAL}). */
    public static ExitCode of(Throwable error) {
        return switch (error) {
            case null -> INTERNAL;
            case CheckpointDirectoryException e -> CHECKPOINT_DIR;
            case NoSpareLeftException e -> NO_SPARE;
            case InstallationException e -> INSTALLATION;
            case ConfigFileException e -> CONFIG;
            // BadSettingException included: every bad option value, whoever parsed it.
            case BadValueException e -> USAGE;
            case DaemonClient.DaemonUnreachableException e -> DAEMON_UNREACHABLE;
            case DaemonClient.RequestFailedException e when e.code() == ErrorCode.NOT_FOUND -> JOB_NOT_FOUND;
            case DaemonClient.RequestFailedException e -> DAEMON_REFUSED;
            case DaemonException e -> DAEMON_REFUSED;
            default -> INTERNAL;
        };
    }
}
