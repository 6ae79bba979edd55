package org.mpirunft.bridge.pause;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.RecoveryReport;
import org.mpirunft.testkit.Pacing;

/**
 * The job-pause test program: each rank holds {@code args[0]} doubles, and every iteration
 * updates them, exchanges a boundary value around a ring and allreduces a norm, so the final
 * checksum depends bit for bit on every rank's whole history. Rank 0 prints progress, each
 * rank's PID and host at the start and the end, and the checksum's bits. Every rank prints the
 * state transfers and a warm spare its release, as its {@link RankListener} hears of them
 * ({@link #TOLD}; the ITs read them).
 *
 * <p>Arguments: doubles per rank, iterations, milliseconds of sleep per iteration, and optionally
 * {@code unpaced-when=PATH} ({@link Pacing}).
 */
public final class RollbackRank {
    private static final int HOST_BYTES = 64;

    /** Prints what the rank library tells the program that the ITs check. */
    private static final RankListener TOLD = new RankListener() {
        @Override
        public void stateTransferred(StateTransfer transfer) {
            System.out.printf(Locale.ROOT, "rank %d: state transfer epoch=%d bytes=%d ms=%.1f from=%s%n", transfer.rank(),
                    transfer.epoch(), transfer.bytes(), transfer.nanos() / 1e6, transfer.from().label());
        }

        @Override
        public void spareReleased(SpareRelease release) {
            System.out.printf(Locale.ROOT, "warm spare %d: released; idle_s=%.1f idle_cpu_s=%.3f%n", release.worldRank(),
                    release.idleNanos() / 1e9, release.cpuNanos() / 1e9);
        }
    };

    private RollbackRank() {
    }

    public static void main(String[] args) throws MPIException {
        int length = Integer.parseInt(args[0]);
        int iterations = Integer.parseInt(args[1]);
        Pacing pace = Pacing.of(Long.parseLong(args[2]), args);

        try (FtRank ft = FtRank.init(args, FtConfig.fromEnvironment(), TOLD)) {
            double[] field = new double[length];
            long[] counters = new long[2];
            for (int i = 0; i < length; i++) {
                field[i] = (ft.rank() + 1) * 1e-3 * (i % 1000);
            }
            ft.state().register("field", field).register("counters", counters);
            if (!ft.isReplacement()) {
                printWhere(ft.world(), "START");
            }
            ft.run(0, iterations, (world, it) -> {
                step(world, field, counters, it);
                if (world.getRank() == 0) {
                    System.out.println("ITER " + it);
                }
                pace.sleep();
            });
            Intracomm world = ft.world();
            double[] sum = {checksum(field, counters)};
            world.allReduce(sum, 1, MPI.DOUBLE, MPI.SUM);
            printWhere(world, "END");
            if (world.getRank() == 0) {
                System.out.println("RESULT bits=" + Long.toHexString(Double.doubleToRawLongBits(sum[0]))
                        + " value=" + sum[0] + " recoveries=" + ft.recoveries().size());
                for (RecoveryReport report : ft.recoveries()) {
                    System.out.println("REPORT " + report.toLine());
                }
                System.out.printf("CHECKPOINTS count=%d last_bytes=%d last_stall_ms=%.2f last_write_ms=%.1f%n",
                        ft.checkpointStats().snapshots(), ft.checkpointStats().lastSnapshotBytes(),
                        ft.checkpointStats().lastStallNanos() / 1e6, ft.checkpointStats().lastWriteNanos() / 1e6);
            }
        }
    }

    private static void step(Intracomm world, double[] field, long[] counters, long iteration) throws MPIException {
        int rank = world.getRank();
        int size = world.getSize();
        double[] out = {field[field.length - 1]};
        double[] in = new double[1];
        world.sendRecv(out, 1, MPI.DOUBLE, (rank + 1) % size, 7, in, 1, MPI.DOUBLE, (rank + size - 1) % size, 7);
        double local = 0;
        for (int i = 0; i < field.length; i++) {
            field[i] = field[i] * 0.999 + 1e-6 * Math.sin(i + iteration) + 1e-9 * in[0];
            local += field[i] * field[i];
        }
        double[] norm = {local};
        world.allReduce(norm, 1, MPI.DOUBLE, MPI.SUM);
        field[0] += 1e-12 * Math.sqrt(norm[0]);
        counters[0] += iteration;
        counters[1] ^= Double.doubleToRawLongBits(norm[0]);
    }

    private static double checksum(double[] field, long[] counters) {
        double sum = counters[0] + (counters[1] & 0xffff);
        for (int i = 0; i < field.length; i++) {
            sum += field[i] * ((i % 7) + 1);
        }
        return sum;
    }

    /** Rank 0 prints "TAG rank=R pid=P host=H" for every rank. */
    private static void printWhere(Intracomm world, String tag) throws MPIException {
        byte[] mine = Arrays.copyOf((ProcessHandle.current().pid() + " " + MPI.getProcessorName())
                .getBytes(StandardCharsets.UTF_8), HOST_BYTES);
        byte[] all = new byte[HOST_BYTES * world.getSize()];
        world.allGather(mine, HOST_BYTES, MPI.BYTE, all, HOST_BYTES, MPI.BYTE);
        if (world.getRank() == 0) {
            for (int r = 0; r < world.getSize(); r++) {
                String[] pidHost = new String(all, r * HOST_BYTES, HOST_BYTES, StandardCharsets.UTF_8).replace("\0", "").split(" ");
                System.out.println(tag + " rank=" + r + " pid=" + pidHost[0] + " host=" + pidHost[1]);
            }
        }
    }

}
