package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Function;
import org.mpirunft.common.JobOwner;
import org.mpirunft.daemon.protocol.ControlRequest;

/**
 * Who may ask what of the daemon over the control socket. A job is its owner's: the owner and
 * the operators may follow it, report on it, checkpoint, migrate or stop it; everyone may list the
 * jobs (others' without details, as {@code squeue} shows other users' jobs). The nodes (drain,
 * resume, restarting daemons) and a kill of every job are the operators'. A job name is taken by
 * its first registration: nobody else may register a job under it. Any user may register a
 * transparent job: its images are kept where only root writes (TransparentNode), so the images
 * the daemon restores as root are always its own dumps.
 */
final class JobAccess {
    /** The owner of a job the scheduler knows; empty for a job it does not know (not registered, or no scheduler here). */
    private final Function<String, Optional<JobOwner>> owners;

    JobAccess(Function<String, Optional<JobOwner>> owners) {
        this.owners = owners;
    }

    /** Why {@code caller} may not make {@code request}, in one line; empty if it may. */
    Optional<String> refusal(ControlRequest request, Caller caller) {
        return switch (request) {
            case ControlRequest.Status s -> Optional.empty();
            case ControlRequest.RegisterJob r -> owners.apply(r.job()).filter(owner -> owner.uid() != caller.user().uid())
                    .map(owner -> "job name " + r.job() + " is taken by " + owner.name() + "'s job; choose another (--job)");
            // Open MPI's launch agent names the job its mpirun runs for; a plain mpirun names none and runs as its user.
            case ControlRequest.Launch l -> l.job().isEmpty() ? Optional.empty() : onJob(l.job(), caller, "launch processes for", true);
            case ControlRequest.Subscribe s -> onJob(s.job(), caller, "follow", true);
            case ControlRequest.FailureReported f -> onJob(f.job(), caller, "report a failure of", true);
            case ControlRequest.RestartNeeded r -> onJob(r.job(), caller, "ask for a restart of", true);
            case ControlRequest.JobRelaunched r -> onJob(r.job(), caller, "record a relaunch of", true);
            case ControlRequest.JobFinished f -> onJob(f.job(), caller, "finish", true);
            case ControlRequest.CheckpointNow c -> onJob(c.job(), caller, "order a checkpoint of", true);
            case ControlRequest.Migrate m -> onJob(m.job(), caller, "migrate", true);
            case ControlRequest.LauncherStarted l -> onJob(l.job(), caller, "register an mpirun for", true)
                    .or(() -> processRefusal(l.pid(), caller));
            // Processes tagged with a job nobody registered are nobody's to kill but an operator's.
            case ControlRequest.KillJob k -> k.job().isEmpty() ? operatorsOnly(caller, "kill every job's processes")
                    : onJob(k.job(), caller, "stop", false);
            case ControlRequest.RestartDaemons r -> operatorsOnly(caller, "restart daemons");
            case ControlRequest.Drain d -> operatorsOnly(caller, "drain a node");
            case ControlRequest.Resume r -> operatorsOnly(caller, "resume a node");
        };
    }

    /** Whether {@code caller} may see the details of {@code job}: its owner's or an operator's; an unknown job's, operators only. */
    boolean maySee(String job, Caller caller) {
        return owners.apply(job).map(caller::mayActOn).orElse(caller.operator());
    }

    /** Whom processes started for {@code job} run as: its owner, or the caller for a job the scheduler does not know. */
    JobOwner launchOwner(String job, Caller caller) {
        return job.isEmpty() ? caller.user() : owners.apply(job).orElse(caller.user());
    }

    private Optional<String> onJob(String job, Caller caller, String action, boolean unknownAllowed) {
        Optional<JobOwner> owner = owners.apply(job);
        if (owner.isEmpty()) {
            return unknownAllowed || caller.operator() ? Optional.empty()
                    : Optional.of("no job " + job + " is registered; only an operator may " + action + " it");
        }
        return caller.mayActOn(owner.get()) ? Optional.empty()
                : Optional.of(caller.user().name() + " may not " + action + " job " + job + ": it is " + owner.get().name() + "'s");
    }

    private static Optional<String> operatorsOnly(Caller caller, String action) {
        return caller.operator() ? Optional.empty() : Optional.of("only an operator may " + action + " (root, or control.operators)");
    }

    /** A caller registers only its own processes: a process of another user's is not its mpirun. */
    private static Optional<String> processRefusal(long pid, Caller caller) {
        if (caller.operator()) {
            return Optional.empty();
        }
        try {
            Object uid = Files.getAttribute(Path.of("/proc", Long.toString(pid)), "unix:uid");
            return ((Number) uid).longValue() == caller.user().uid() ? Optional.empty()
                    : Optional.of("pid " + pid + " is not " + caller.user().name() + "'s process");
        } catch (IOException | UnsupportedOperationException e) {
            return Optional.of("no process " + pid + " on this node");
        }
    }
}
