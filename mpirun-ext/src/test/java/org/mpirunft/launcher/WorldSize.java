package org.mpirunft.launcher;

import java.nio.IntBuffer;
import mpi.MPI;
import mpi.MPIException;

/**
 * {@code src/test/c/world-size.c} in Java, on Open MPI's Java bindings alone (ProgramWorldIT):
 * a program that knows nothing of mpirun-ft and checks the world it was given. Buffers are
 * direct: Open MPI 5's Java bindings corrupt memory with some collectives on heap arrays.
 *
 * <p>Usage: {@code WorldSize N|even}
 */
public final class WorldSize {
    private WorldSize() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        int status = 0;
        if (args.length != 1) {
            status = fail(rank, "usage: WorldSize N|even", 2);
        } else if (args[0].equals("even")) {
            if (size % 2 != 0) {
                status = fail(rank, "WORLD FAILED: " + size + " processes in MPI_COMM_WORLD, this program pairs them up and needs an even count", 1);
            } else {
                IntBuffer mine = MPI.newIntBuffer(1).put(0, rank);
                IntBuffer heard = MPI.newIntBuffer(1);
                int partner = rank ^ 1;
                MPI.COMM_WORLD.sendRecv(mine, 1, MPI.INT, partner, 0, heard, 1, MPI.INT, partner, 0);
                IntBuffer paired = MPI.newIntBuffer(1).put(0, heard.get(0) == partner ? 1 : 0);
                IntBuffer pairs = MPI.newIntBuffer(1);
                MPI.COMM_WORLD.reduce(paired, pairs, 1, MPI.INT, MPI.SUM, 0);
                if (rank == 0) {
                    System.out.println("WORLD OK size=" + size + " pairs=" + pairs.get(0) / 2);
                }
            }
        } else {
            int expected = Integer.parseInt(args[0]);
            if (size != expected) {
                status = fail(rank, "WORLD FAILED: " + size + " processes in MPI_COMM_WORLD, expected " + expected + " (-np)", 1);
            } else {
                IntBuffer one = MPI.newIntBuffer(1).put(0, 1);
                IntBuffer counted = MPI.newIntBuffer(1);
                MPI.COMM_WORLD.allReduce(one, counted, 1, MPI.INT, MPI.SUM);
                if (rank == 0) {
                    System.out.println("WORLD OK size=" + size + " counted=" + counted.get(0));
                }
            }
        }
        System.out.flush();
        MPI.Finalize();
        System.exit(status);
    }

    /** Every rank sees the same size and decides alike; rank 0 says why. */
    private static int fail(int rank, String why, int status) {
        if (rank == 0) {
            System.err.println(why);
        }
        return status;
    }
}
