package org.mpirunft.npb;

import mpi.Intracomm;
import mpi.MPIException;

/** One line per finished iteration from rank 0, so tests and people can follow a run. */
public final class Progress {
    private Progress() {
    }

    /** Call at the end of each iteration body. */
    public static void iterationDone(Intracomm world, long iteration, long iterations) throws MPIException {
        if (world.getRank() == 0) {
            System.out.println("[npb] iteration " + iteration + " of " + iterations);
            System.out.flush();
        }
    }
}
