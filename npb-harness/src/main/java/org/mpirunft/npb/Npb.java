package org.mpirunft.npb;

import java.util.concurrent.Callable;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.FtRank;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code npb KERNEL CLASS}: runs one NPB kernel on every rank of the MPI job it is started in,
 * checkpointing through blcr-bridge (settings: {@code mpirunft.*} / {@code MPIRUN_FT_*}).
 * Rank 0 prints the NPB report. Exit status: 0 verified, 1 verification failed, 2 bad usage.
 */
@Command(name = "npb", mixinStandardHelpOptions = true,
        description = "Runs one NAS Parallel Benchmark kernel on the ranks of the MPI job it is started in.")
public final class Npb implements Callable<Integer> {
    static final int VERIFIED = 0;
    static final int UNVERIFIED = 1;
    static final int USAGE = 2;

    @Parameters(index = "0", paramLabel = "KERNEL", description = "ep, cg, is, mg, ft, bt, lu or sp")
    String kernelName;

    @Parameters(index = "1", paramLabel = "CLASS", description = "S, W, A, B or C")
    String className;

    @Option(names = "--repeat", paramLabel = "N",
            description = "IS and MG: go through the class's iterations N times in this job, each time from the initial state, "
                    + "each verified (default: 1)")
    int repeat = 1;

    @Option(names = "--iterations", paramLabel = "RANKS",
            description = "print how many iterations (safe points) the kernel goes through for CLASS on RANKS ranks, "
                    + "times --repeat, and exit without starting MPI: what a script needs to place checkpoints and a failure")
    Integer iterationsOn;

    public static void main(String[] args) {
        CommandLine commandLine = new CommandLine(new Npb());
        commandLine.setExecutionExceptionHandler((e, line, parsed) -> {
            line.getErr().println("npb: " + e.getMessage());
            return USAGE;
        });
        System.exit(commandLine.execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Kernel kernel;
        NpbClass cls;
        try {
            kernel = Kernels.byName(kernelName);
            cls = NpbClass.parse(className);
            Progress.pace(System.getenv(Progress.PACE_VARIABLE));
            String refused = kernel.refusesRepeats(repeat);
            if (refused != null) {
                throw new IllegalArgumentException("--repeat: " + refused);
            }
            if (iterationsOn != null) {
                if (iterationsOn < 1) {
                    throw new IllegalArgumentException("--iterations: RANKS must be 1 or more, got " + iterationsOn);
                }
                String unsupported = kernel.unsupported(cls, iterationsOn);
                if (unsupported != null) {
                    throw new IllegalArgumentException(kernel.name() + " class " + cls + " cannot run on " + iterationsOn + " ranks: "
                            + unsupported);
                }
                System.out.println(kernel.iterations(cls, iterationsOn) * repeat);
                return VERIFIED;
            }
        } catch (IllegalArgumentException e) {
            System.err.println("npb: " + e.getMessage());
            return USAGE;
        }
        boolean writeTimes = NpbReport.writeTimesWanted(System.getenv(NpbReport.WRITE_TIMES_VARIABLE));
        NpbListener listener = new NpbListener(writeTimes, System.out);
        try (FtRank ft = FtRank.init(new String[0], FtConfig.fromEnvironment(), listener)) {
            int ranks = ft.world().getSize();
            String unsupported = kernel.unsupported(cls, ranks);
            if (unsupported != null) {
                if (ft.rank() == 0) {
                    System.err.println("npb: " + kernel.name() + " class " + cls + " cannot run on " + ranks + " ranks: " + unsupported);
                }
                return USAGE;
            }
            if (ft.rank() == 0 && !ft.isReplacement()) {
                System.out.printf("%n NAS Parallel Benchmarks (mpirun-ft Java) - %s Benchmark%n%n", kernel.name());
            }
            KernelResult result = kernel.run(ft, cls, repeat);
            if (ft.rank() == 0) {
                System.out.print(NpbReport.format(result));
                System.out.println(NpbReport.checkpointLine(ft.checkpointStats()));
                System.out.flush();
            }
            if (writeTimes) {
                for (PartWriteTimes.Timed write : listener.partWrites()) {
                    if (write.write().rank() == ft.rank()) {
                        System.out.println(NpbReport.partWriteLine(write));
                    }
                }
                System.out.flush();
            }
            return result.verified() ? VERIFIED : UNVERIFIED;
        }
    }
}
