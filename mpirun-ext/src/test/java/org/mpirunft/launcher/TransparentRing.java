package org.mpirunft.launcher;

import java.nio.LongBuffer;
import mpi.MPI;
import mpi.MPIException;

/**
 * A Java MPI program that knows nothing of mpirun-ft (TransparentIT): Open MPI's Java bindings
 * only, no rank library. The ring of {@code src/test/c/transparent-ring.c}, with the same
 * arithmetic, so both print the same checksums. Buffers are direct: Open MPI 5's Java bindings
 * corrupt memory with some collectives on heap arrays.
 *
 * <p>Usage: {@code TransparentRing ITERATIONS PACE_MS [UNPACED_WHEN]}: as the C ring, it stops
 * sleeping once the file UNPACED_WHEN exists.
 */
public final class TransparentRing {
    private static final int N = 4096;

    private TransparentRing() {
    }

    /** What the ring prints as its CHECKSUM on {@code ranks} ranks after {@code iterations}, computed here without MPI. */
    static String expectedChecksum(int ranks, int iterations) {
        long[][] state = new long[ranks][N];
        for (int rank = 0; rank < ranks; rank++) {
            for (int i = 0; i < N; i++) {
                state[rank][i] = rank * 1000003L + i;
            }
        }
        for (int it = 0; it < iterations; it++) {
            long[][] next = new long[ranks][N];
            for (int rank = 0; rank < ranks; rank++) {
                long[] in = state[(rank + ranks - 1) % ranks];
                for (int i = 0; i < N; i++) {
                    next[rank][i] = state[rank][i] * 6364136223846793005L + in[i] + it;
                }
            }
            state = next;
        }
        long sum = 0;
        for (long[] rankState : state) {
            for (long value : rankState) {
                sum += value;
            }
        }
        return Long.toUnsignedString(sum);
    }

    public static void main(String[] args) throws MPIException, InterruptedException {
        int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 40;
        int pace = args.length > 1 ? Integer.parseInt(args[1]) : 150;
        java.nio.file.Path unpacedWhen = args.length > 2 ? java.nio.file.Path.of(args[2]) : null;
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        LongBuffer state = MPI.newLongBuffer(N);
        LongBuffer in = MPI.newLongBuffer(N);
        LongBuffer local = MPI.newLongBuffer(1);
        LongBuffer all = MPI.newLongBuffer(1);
        for (int i = 0; i < N; i++) {
            state.put(i, rank * 1000003L + i);
        }
        for (int it = 0; it < iterations; it++) {
            MPI.COMM_WORLD.sendRecv(state, N, MPI.LONG, (rank + 1) % size, 0, in, N, MPI.LONG, (rank + size - 1) % size, 0);
            long mixed = 0;
            for (int i = 0; i < N; i++) {
                long s = state.get(i) * 6364136223846793005L + in.get(i) + it;
                state.put(i, s);
                mixed ^= s;
            }
            local.put(0, mixed * (rank + 3) + state.get(it % N));
            MPI.COMM_WORLD.allReduce(local, all, 1, MPI.LONG, MPI.SUM);
            if (rank == 0) {
                System.out.println("ITER " + it + " " + Long.toUnsignedString(all.get(0)));
                System.out.flush();
            }
            if (pace > 0 && unpacedWhen != null && java.nio.file.Files.exists(unpacedWhen)) {
                pace = 0;
            }
            if (pace > 0) {
                Thread.sleep(pace);
            }
        }
        long sum = 0;
        for (int i = 0; i < N; i++) {
            sum += state.get(i);
        }
        local.put(0, sum);
        MPI.COMM_WORLD.reduce(local, all, 1, MPI.LONG, MPI.SUM, 0);
        if (rank == 0) {
            System.out.println("CHECKSUM " + Long.toUnsignedString(all.get(0)));
        }
        MPI.Finalize();
    }
}
