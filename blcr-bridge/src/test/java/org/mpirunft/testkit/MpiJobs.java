package org.mpirunft.testkit;

import java.io.File;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;
import org.mpirunft.common.MpirunSettings;

/** Command lines for MPI jobs in a {@link SimulatedCluster}, with the settings recovery needs. */
public final class MpiJobs {
    /** mpi.jar and JNA load native code; say so, or every JVM warns. */
    public static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";

    private MpiJobs() {
    }

    /**
     * {@code mpirun} with the settings recovery needs, as mpirun-ft gives them
     * ({@link MpirunSettings#recovery}), ULFM on unless {@code ulfm} is false (to show what
     * happens without it), and one setting of the simulated cluster's own.
     */
    public static List<String> mpirun(boolean ulfm, String hosts, int ranks, List<String> program) {
        return mpirun(ulfm, SimulatedCluster.LAUNCH_AGENT, hosts, ranks, program);
    }

    /** As above, with Open MPI's node daemons started through {@code agent}. */
    public static List<String> mpirun(boolean ulfm, String agent, String hosts, int ranks, List<String> program) {
        List<String> command = new ArrayList<>(List.of("mpirun"));
        MpirunSettings.recovery(ulfm, agent).forEach(setting -> command.addAll(setting.argv()));
        // Simulated nodes share this machine's cores.
        command.addAll(MpirunSettings.SHARED_CORES.argv());
        command.addAll(List.of("--host", hosts, "-np", Integer.toString(ranks)));
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
