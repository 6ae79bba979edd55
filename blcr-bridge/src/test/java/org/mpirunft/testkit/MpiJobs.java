package org.mpirunft.testkit;

import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/** Command lines for MPI jobs in a {@link SimulatedCluster}, with the settings recovery needs. */
public final class MpiJobs {
    /** mpi.jar and JNA load native code; say so, or every JVM warns. */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    private MpiJobs() {
    }

    /**
     * {@code mpirun} with ULFM on (unless {@code ulfm} is false, to show what happens without
     * it) and the settings from the platform notes.
     */
    public static List<String> mpirun(boolean ulfm, String hosts, int ranks, List<String> program) {
        return mpirun(ulfm, SimulatedCluster.LAUNCH_AGENT, hosts, ranks, program);
    }

    /** As above, with Open MPI's node daemons started through {@code agent}. */
    public static List<String> mpirun(boolean ulfm, String agent, String hosts, int ranks, List<String> program) {
        List<String> command = new ArrayList<>(List.of("mpirun"));
        if (ulfm) {
            // A replacement lost while it starts must not take down the job it was spawned into.
            command.addAll(List.of("--with-ft", "ulfm", "--prtemca", "pmix_terminate_connected", "0"));
        }
        command.addAll(List.of(
                // han returned wrong collective results right after a kill.
                "--mca", "coll", "^han",
                "--prtemca", "plm_ssh_agent", agent,
                // The head launches every node daemon itself, so no daemon depends on another.
                "--prtemca", "plm_ssh_no_tree_spawn", "1",
                "--bind-to", "none",
                // Simulated nodes share this machine's cores: a rank waiting in MPI must not
                // starve the others (a replacement JVM starting up, above all).
                "--mca", "mpi_yield_when_idle", "1",
                "--mca", "threads_pthreads_yield_strategy", "nanosleep",
                "--host", hosts, "-np", Integer.toString(ranks)));
        command.addAll(program);
        return command;
    }

    /** {@code java} running {@code main} with this JVM's class path and the given JVM options. */
    public static List<String> java(List<String> jvmOptions, Class<?> main, String... args) {
        List<String> command = new ArrayList<>(List.of("java", NATIVE_ACCESS, "-cp", rankClassPath()));
        command.addAll(jvmOptions);
        command.add(main.getName());
        command.addAll(Arrays.asList(args));
        return command;
    }

    /** This JVM's class path, which the nodes see at the same paths. */
    public static String rankClassPath() {
        Path repo = SimulatedCluster.repoRoot();
        Path m2 = Paths.get(System.getProperty("user.home"), ".m2", "repository");
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> {
                    Path path = Paths.get(entry).toAbsolutePath();
                    return path.startsWith(repo) || path.startsWith(m2);
                })
                .collect(Collectors.joining(File.pathSeparator));
    }
}
