package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Open MPI's node daemon started as a step of the Slurm allocation the job runs in, so that
 * Slurm tracks it and its ranks (its process tracking plugin, its cgroup where it has one) and
 * accounts their CPU time. The node's daemon runs {@code srun --external-launcher} for this node
 * only: one step per node, so a lost node ends its own step and no other (a single srun over
 * every node would end the job's node daemons with it). The step's task is the node daemon in
 * the foreground (no {@code --daemonize}: a task that daemonized would leave the step, and
 * slurmstepd would end the step and kill what it tracked).
 *
 * <p>The node daemon is then slurmstepd's child, not this daemon's descendant. This daemon
 * recognizes it by a one-time token that only it and the step see: the token travels in srun's
 * environment (root's or, through setpriv, the owner's, which no other user can read) to the
 * task, and the task must be the child of a root-owned {@code slurmstepd}. Once found, the node
 * daemon is a root of the job's process tree like one this daemon started itself, by PID; the
 * token admits nothing after that.
 */
final class SlurmStep {
    /** Set in the step's task only; names the launch it belongs to. */
    static final String TOKEN_VARIABLE = "MPIRUN_FT_LAUNCH_TOKEN";
    /** Slurm job IDs as {@code SLURM_JOB_ID} holds them. */
    private static final Pattern JOB_ID = Pattern.compile("[0-9]{1,12}");
    private static final String SRUN = "srun";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final String slurmJob;
    private final String token;

    private SlurmStep(String slurmJob, String token) {
        this.slurmJob = slurmJob;
        this.token = token;
    }

    /**
     * A step for Slurm job {@code slurmJob}.
     *
     * @throws IllegalArgumentException when {@code slurmJob} is not a Slurm job ID
     */
    static SlurmStep of(String slurmJob) {
        if (!JOB_ID.matcher(slurmJob).matches()) {
            throw new IllegalArgumentException("'" + slurmJob + "' is not a Slurm job ID");
        }
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return new SlurmStep(slurmJob, HexFormat.of().formatHex(bytes));
    }

    String slurmJob() {
        return slurmJob;
    }

    String token() {
        return token;
    }

    /**
     * srun's argv that runs {@code prtedArgv} as one task of a step on {@code node} alone. The
     * step survives a failure elsewhere ({@code --no-kill}, {@code --kill-on-bad-exit=0}), wants
     * no MPI plugin (PRRTE wires the job itself), reads no input, and takes no resources from
     * the ranks' own steps ({@code --external-launcher}).
     */
    List<String> srunArgv(String node, List<String> prtedArgv) {
        List<String> argv = new ArrayList<>(List.of(SRUN, "--jobid=" + slurmJob, "--external-launcher",
                "--nodes=1", "--ntasks=1", "--nodelist=" + node, "--no-kill", "--kill-on-bad-exit=0",
                "--mpi=none", "--input=none", "--quiet", "--job-name=prted"));
        prtedArgv.stream().filter(word -> !word.equals("--daemonize")).forEach(argv::add);
        return argv;
    }

    /**
     * Waits up to {@code bound} for the step's task: the process carrying this launch's token
     * whose parent is a root-owned {@code slurmstepd}. Gives up early when {@code srun} ends.
     *
     * @return its PID, or empty when it did not appear
     */
    Optional<Long> awaitTask(Process srun, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (System.nanoTime() < deadline) {
            Optional<Long> task = findTask();
            if (task.isPresent()) {
                return task;
            }
            if (!srun.isAlive()) {
                return findTask();
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        }
        return Optional.empty();
    }

    private Optional<Long> findTask() {
        try (Stream<Path> entries = Files.list(Path.of("/proc"))) {
            return entries.map(p -> p.getFileName().toString()).filter(name -> name.chars().allMatch(Character::isDigit))
                    .map(Long::parseLong)
                    .filter(pid -> LinuxProcesses.environment(pid, TOKEN_VARIABLE).filter(token::equals).isPresent())
                    .filter(SlurmStep::childOfSlurmstepd).findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean childOfSlurmstepd(long pid) {
        return LinuxProcesses.stat(pid).map(LinuxProcesses.Stat::parent)
                .filter(parent -> LinuxProcesses.commandName(parent).startsWith("slurmstepd"))
                .flatMap(ProcessHandle::of).flatMap(parent -> parent.info().user()).filter("root"::equals).isPresent();
    }
}
