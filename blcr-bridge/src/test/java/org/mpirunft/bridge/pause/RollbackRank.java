package org.mpirunft.bridge.pause;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
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
 * {@code unpaced-when=PATH} ({@link Pacing}), {@code checksums-at=N,M,...} (rank 0 also prints
 * {@code RESULT@N bits=...}, the bits a run of N iterations ends with, so that one failure-free
 * run gives the reference of several shorter ones) and {@code stride=K} (each iteration takes the
 * sine of every K-th double only, a K times lighter computation over the same state: a test
 * that needs large checkpoint parts need not pay for computing on all of it).
 */
public final class RollbackRank {
    private static final int HOST_BYTES = 64;
    private static final String CHECKSUMS_AT = "checksums-at=";
    private static final String STRIDE = "stride=";

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
        Set<Long> checksumsAt = option(args, CHECKSUMS_AT).map(v -> Arrays.stream(v.split(",")).map(Long::valueOf)
                .collect(Collectors.toSet())).orElse(Set.of());
        int stride = option(args, STRIDE).map(Integer::valueOf).orElse(1);

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
                step(world, field, counters, it, stride);
                if (checksumsAt.contains(it + 1)) {
                    double[] sum = {checksum(field, counters)};
                    world.allReduce(sum, 1, MPI.DOUBLE, MPI.SUM);
                    if (world.getRank() == 0) {
                        System.out.println("RESULT@" + (it + 1) + " bits=" + Long.toHexString(Double.doubleToRawLongBits(sum[0])));
                    }
                }
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

    private static Optional<String> option(String[] args, String name) {
        return Arrays.stream(args).filter(a -> a.startsWith(name)).findFirst().map(a -> a.substring(name.length()));
    }

    private static void step(Intracomm world, double[] field, long[] counters, long iteration, int stride) throws MPIException {
        int rank = world.getRank();
        int size = world.getSize();
        double[] out = {field[field.length - 1]};
        double[] in = new double[1];
        world.sendRecv(out, 1, MPI.DOUBLE, (rank + 1) % size, 7, in, 1, MPI.DOUBLE, (rank + size - 1) % size, 7);
        double local = 0;
        int waved = (int) (iteration % stride);
        for (int i = 0; i < field.length; i++) {
            double wave = 0;
            if (i == waved) {
                wave = 1e-6 * Math.sin(i + iteration);
                waved += stride;
            }
            field[i] = field[i] * 0.999 + wave + 1e-9 * in[0];
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
