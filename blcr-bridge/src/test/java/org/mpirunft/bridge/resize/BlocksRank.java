package org.mpirunft.bridge.resize;

import java.nio.DoubleBuffer;
import java.nio.LongBuffer;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.bridge.RecoveryReport;
import org.mpirunft.bridge.state.Blocks;
import org.mpirunft.bridge.state.Grid;
import org.mpirunft.testkit.Pacing;

/**
 * The resize test program: a 1-D heat stencil on a global array distributed in blocks over the
 * ranks, and a matrix distributed in 2-D blocks over a process grid. Each iteration exchanges
 * one boundary value with each neighbour and updates every point from its neighbours and a
 * source term, and updates every matrix cell from itself, so every value depends only on the
 * global history, not on how many ranks hold it: a run on any rank count, resized or not, ends
 * with the same bits (the matrix's in an order-free XOR of its cells). Rank 0 prints where the loop started, progress and the result, which it sums
 * over the gathered global array in index order; every rank prints its PID at the start and the end.
 *
 * <p>Arguments: global length, iterations, milliseconds of sleep per iteration, and optionally
 * {@code pow2}: the program runs on powers of two only, so a shrink goes to the largest one, and
 * {@code unpaced-when=PATH} ({@link Pacing}).
 */
public final class BlocksRank {
    private static final double DIFFUSION = 0.25;
    private static final long PLATE_ROWS = 301;
    private static final long PLATE_COLUMNS = 203;

    private BlocksRank() {
    }

    public static void main(String[] args) throws MPIException {
        long length = Long.parseLong(args[0]);
        int iterations = Integer.parseInt(args[1]);
        Pacing pace = Pacing.of(Long.parseLong(args[2]), args);

        try (FtRank ft = FtRank.init(args)) {
            if (args.length > 3 && args[3].equals("pow2")) {
                ft.acceptRanks(n -> Integer.bitCount(n) == 1);
            }
            Blocks<double[]> field = ft.state().blocks("field", length, double[].class);
            double[] source = {1e-3, 0.01};
            double[] u = field.array();
            for (int i = 0; i < u.length; i++) {
                u[i] = Math.sin((field.start() + i) * 0.01);
            }
            ft.state().registerReplicated("source", source);
            Grid<double[]> plate = ft.state().grid("plate", PLATE_ROWS, PLATE_COLUMNS, double[].class);
            double[] p = plate.array();
            int columns = plate.columns();
            for (int i = 0; i < plate.rows(); i++) {
                for (int j = 0; j < columns; j++) {
                    p[i * columns + j] = (plate.rowStart() + i) * 1e-3 + plate.columnStart() + j;
                }
            }
            if (!ft.isReplacement()) {
                System.out.println("PID rank=" + ft.rank() + " pid=" + ProcessHandle.current().pid() + " start");
            }
            boolean[] started = {false};
            ft.run(0, iterations, (world, it) -> {
                if (!started[0]) {
                    started[0] = true;
                    if (world.getRank() == 0) {
                        System.out.println("FIRST it=" + it + " ranks=" + world.getSize());
                    }
                }
                step(world, field, source, it);
                heat(plate, it);
                ft.state().scalars().setLong("steps", ft.state().scalars().getLong("steps", 0) + 1);
                if (world.getRank() == 0) {
                    System.out.println("ITER " + it);
                }
                pace.sleep();
            });
            Intracomm world = ft.world();
            System.out.println("PID rank=" + world.getRank() + " pid=" + ProcessHandle.current().pid() + " end");
            double sum = gatheredChecksum(world, field, length);
            long cells = cellsChecksum(world, plate);
            if (world.getRank() == 0) {
                long steps = ft.state().scalars().getLong("steps", 0);
                System.out.println("RESULT bits=" + Long.toHexString(Double.doubleToRawLongBits(sum)) + "-" + Long.toHexString(cells)
                        + " value=" + sum
                        + " ranks=" + world.getSize() + " recoveries=" + ft.recoveries().size() + " steps=" + steps);
                for (RecoveryReport report : ft.recoveries()) {
                    System.out.println("REPORT " + report.toLine());
                }
            }
        }
    }

    private static void step(Intracomm world, Blocks<double[]> field, double[] source, long iteration) throws MPIException {
        double[] u = field.array();
        int rank = world.getRank();
        int size = world.getSize();
        DoubleBuffer fromLeft = MPI.newDoubleBuffer(1).put(0, 0);
        DoubleBuffer fromRight = MPI.newDoubleBuffer(1).put(0, 0);
        shift(world, MPI.newDoubleBuffer(1).put(0, u[u.length - 1]), fromLeft, rank + 1, rank - 1, 11);
        shift(world, MPI.newDoubleBuffer(1).put(0, u[0]), fromRight, rank - 1, rank + 1, 12);
        double[] next = new double[u.length];
        long start = field.start();
        for (int i = 0; i < u.length; i++) {
            double l = i == 0 ? fromLeft.get(0) : u[i - 1];
            double r = i == u.length - 1 ? fromRight.get(0) : u[i + 1];
            next[i] = u[i] + DIFFUSION * (l - 2 * u[i] + r) + source[0] * Math.sin((start + i) * source[1] + iteration);
        }
        System.arraycopy(next, 0, u, 0, u.length);
    }

    /**
     * Sends {@code out} to rank {@code to} and receives {@code in} from rank {@code from}, either
     * off the ends alone: never MPI_Sendrecv with MPI_PROC_NULL, which in Open MPI 5.0.7 dies of
     * SIGSEGV when its send fails with MPI_ERR_REVOKED, and whose receive into a heap array
     * (Java bindings) was seen to write into it.
     */
    private static void shift(Intracomm world, DoubleBuffer out, DoubleBuffer in, int to, int from, int tag) throws MPIException {
        int size = world.getSize();
        boolean sends = to >= 0 && to < size;
        boolean receives = from >= 0 && from < size;
        if (sends && receives) {
            world.sendRecv(out, 1, MPI.DOUBLE, to, tag, in, 1, MPI.DOUBLE, from, tag);
        } else if (sends) {
            world.send(out, 1, MPI.DOUBLE, to, tag);
        } else if (receives) {
            world.recv(in, 1, MPI.DOUBLE, from, tag);
        }
    }

    /** Every cell from itself and its global place only. */
    private static void heat(Grid<double[]> plate, long iteration) {
        // The grid's accessors compute the layout on each call: once per step here, not per cell.
        double[] p = plate.array();
        int rows = plate.rows();
        int columns = plate.columns();
        long rowStart = plate.rowStart();
        long columnStart = plate.columnStart();
        for (int i = 0; i < rows; i++) {
            long row = rowStart + i;
            for (int j = 0; j < columns; j++) {
                long column = columnStart + j;
                int at = i * columns + j;
                p[at] = p[at] * 0.5 + Math.sin(row * 0.1 + column * 0.01 + iteration);
            }
        }
    }

    /** The XOR over every cell of its bits times an odd number from its global place: exact, and in no order. */
    private static long cellsChecksum(Intracomm world, Grid<double[]> plate) throws MPIException {
        double[] p = plate.array();
        int rows = plate.rows();
        int columns = plate.columns();
        long rowStart = plate.rowStart();
        long columnStart = plate.columnStart();
        long xor = 0;
        for (int i = 0; i < rows; i++) {
            for (int j = 0; j < columns; j++) {
                long place = (rowStart + i) * PLATE_COLUMNS + columnStart + j;
                xor ^= Double.doubleToRawLongBits(p[i * columns + j]) * (2 * place + 1);
            }
        }
        LongBuffer all = MPI.newLongBuffer(1).put(0, xor);
        world.allReduce(all, 1, MPI.LONG, MPI.BXOR);
        return all.get(0);
    }

    /** Rank 0 receives every block in rank order and sums the global array in index order. */
    private static double gatheredChecksum(Intracomm world, Blocks<double[]> field, long length) throws MPIException {
        double[] u = field.array();
        if (world.getRank() != 0) {
            world.send(u, u.length, MPI.DOUBLE, 0, 13);
            return 0;
        }
        double sum = 0;
        long index = 0;
        for (int r = 0; r < world.getSize(); r++) {
            double[] block = r == 0 ? u : new double[(int) field.distribution().size(r)];
            if (r > 0) {
                world.recv(block, block.length, MPI.DOUBLE, r, 13);
            }
            for (double v : block) {
                sum += v * ((index % 7) + 1);
                index++;
            }
        }
        if (index != length) {
            throw new IllegalStateException("gathered " + index + " of " + length + " elements");
        }
        return sum;
    }

}
