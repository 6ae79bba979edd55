package org.mpirunft.npb.bench;

import java.util.ArrayList;
import java.util.List;
import org.mpirunft.common.MpirunSettings;

/**
 * The command line that runs one plan's job: mpirun-ft with the variant's recovery, the run's
 * storage configuration and checkpoint knob, the ranks' heap, pace and environment, and NPB's
 * kernel and class as the program; a transparent run's on the head node itself.
 */
final class LaunchCommand {
    /** Open MPI's launch agent inside the nodes when the cluster runs daemons. */
    private static final String FTD_AGENT = "/ftc/ftd/bin/ftd agent";
    /**
     * The {@code transparent} variant's checkpoint interval: CRIU knows no iterations, so the
     * scheduler orders its epochs on time; the failure then waits for the first commit as for
     * {@code pause}.
     */
    static final String TRANSPARENT_INTERVAL = "5s";
    /** The simulated cluster's nodes share this machine's cores (common's {@code MpirunSettings.SHARED_CORES}). */
    private static final List<String> SHARED_CORES = MpirunSettings.SHARED_CORES.argv();

    private final BenchSettings settings;
    private final RunDirectory directory;
    /** {@code name=value} for every rank of every run ({@code mpirun -x}). */
    private final List<String> rankEnvironment;

    LaunchCommand(BenchSettings settings, RunDirectory directory, List<String> rankEnvironment) {
        this.settings = settings;
        this.directory = directory;
        this.rankEnvironment = rankEnvironment;
    }

    /** The command for {@code plan}'s run as {@code job} on {@code cluster}. */
    List<String> of(RunPlan plan, String job, BenchCluster cluster) {
        if (plan.variant() == Variant.TRANSPARENT) {
            return transparent(plan, job, cluster);
        }
        List<String> command = new ArrayList<>(List.of(directory.launcher().toString(),
                "--socket", cluster.headSocket().toString(),
                "--mpirun", directory.mpirun().toString(),
                "--agent", FTD_AGENT,
                "--checkpoint-dir", directory.checkpoints().toString(),
                "--local-checkpoint-dir", "/local/ckpt",
                "--job", job,
                "--recovery", plan.variant().recoveryMode(),
                "--spares", Integer.toString(settings.spares()),
                "--exit-timeout", "15s",
                "-np", Integer.toString(plan.nodes())));
        command.addAll(SHARED_CORES);
        command.addAll(command.indexOf("-np"), plan.variant().launcherOptions());
        if (!settings.aotCache()) {
            command.addAll(command.indexOf("-np"), List.of("--aot-cache", "off"));
        }
        command.addAll(command.indexOf("-np"), plan.storage().options());
        if (plan.variant().autoInterval()) {
            // Daly's interval, from the measured commit cost and the cluster's MTBF (the bench's --mtbf).
            command.addAll(command.indexOf("-np"), List.of("--checkpoint-interval", "auto"));
        } else if (plan.checkpointEvery() > 0) {
            // Insert before -np: it is mpirun-ft's option, the job's one checkpoint knob.
            command.addAll(command.indexOf("-np"), List.of("--checkpoint-interval", "every " + plan.checkpointEvery()));
        }
        command.addAll(List.of("-x", "NPB_JAVA_OPTS=-Xmx" + settings.rankHeapMb() + "m"));
        addPace(command, plan);
        for (String variable : rankEnvironment) {
            command.addAll(List.of("-x", variable));
        }
        addProgram(command, plan);
        return command;
    }

    /**
     * A transparent run: mpirun-ft on the head node itself, as a user runs it there, since
     * mpirun's output pipes must be the node's for CRIU to dump mpirun; the node's site config
     * names the daemon's socket and the launch agent.
     */
    private List<String> transparent(RunPlan plan, String job, BenchCluster cluster) {
        List<String> command = new ArrayList<>(List.of("env", "MPIRUN_FT_CLUSTER=" + cluster.name(), cluster.script().toString(),
                "exec", BenchCluster.HEAD, "--", directory.launcher().toString(),
                "--checkpoint-dir", directory.checkpoints().toString(),
                "--job", job, "--transparent",
                "--spares", Integer.toString(settings.spares()),
                "--exit-timeout", "15s",
                "--checkpoint-interval", TRANSPARENT_INTERVAL,
                "-np", Integer.toString(plan.nodes())));
        command.addAll(SHARED_CORES);
        command.addAll(List.of("-x", "NPB_JAVA_OPTS=-Xmx" + settings.rankHeapMb() + "m"));
        addPace(command, plan);
        addProgram(command, plan);
        return command;
    }

    /** The ranks' pace per iteration, if the plan sets one. */
    private static void addPace(List<String> command, RunPlan plan) {
        if (plan.paceMillis() > 0) {
            command.addAll(List.of("-x", "NPB_PACE_MS=" + plan.paceMillis()));
        }
    }

    /** NPB's kernel and class, and how many times the kernel runs. */
    private void addProgram(List<String> command, RunPlan plan) {
        command.addAll(List.of(directory.npb().toString(), plan.kernel(), plan.cls().name()));
        if (settings.kernelRepeat() > 1) {
            command.addAll(List.of("--repeat", Integer.toString(settings.kernelRepeat())));
        }
    }
}
