package org.mpirunft.bridge.internal;

import java.nio.LongBuffer;
import mpi.MPI;

/**
 * Two ranks; rank 1 joins each allreduce 1.5 s late. Rank 0 waits once through
 * {@link IdleWait} and once in Open MPI's blocking allreduce, and prints the CPU time its
 * thread used in each wait: {@code IDLE wall_ms=... cpu_ms=...} and {@code BLOCKING ...}.
 */
public final class IdleWaitRank {
    private static final long LATE_MILLIS = 1500;

    private IdleWaitRank() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        LongBuffer value = MPI.newLongBuffer(1).put(0, rank);
        for (String wait : new String[] {"IDLE", "BLOCKING"}) {
            MPI.COMM_WORLD.barrier();
            if (rank == 1) {
                Thread.sleep(LATE_MILLIS);
            }
            long start = System.nanoTime();
            long startCpu = IdleWait.cpuNanos();
            if (wait.equals("IDLE")) {
                IdleWait.await(MPI.COMM_WORLD.iAllReduce(value, 1, MPI.LONG, MPI.SUM));
            } else {
                MPI.COMM_WORLD.allReduce(value, 1, MPI.LONG, MPI.SUM);
            }
            if (rank == 0) {
                System.out.printf("%s wall_ms=%d cpu_ms=%d%n", wait, (System.nanoTime() - start) / 1_000_000,
                        (IdleWait.cpuNanos() - startCpu) / 1_000_000);
                System.out.flush();
            }
        }
        MPI.Finalize();
    }
}
