package org.mpirunft.npb;

import mpi.Intracomm;
import mpi.MPIException;

/** One line per finished iteration from rank 0, so tests and people can follow a run. */
public final class Progress {
    /**
     * {@code NPB_PACE_MS}: every rank sleeps this long after each iteration. Class S iterations
     * take milliseconds, too short to inject a node failure mid-run; the benchmark harness
     * paces them (the same pace for every variant it compares). 0, the default, is no pause.
     */
    static final String PACE_VARIABLE = "NPB_PACE_MS";
    private static final long PACE_MILLIS = pace(System.getenv(PACE_VARIABLE));

    private Progress() {
    }

    static long pace(String value) {
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            long millis = Long.parseLong(value.strip());
            if (millis >= 0) {
                return millis;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(PACE_VARIABLE + " must be a number of milliseconds >= 0, got '" + value + "'");
    }

    /** Call at the end of each iteration body. */
    public static void iterationDone(Intracomm world, long iteration, long iterations) throws MPIException {
        if (world.getRank() == 0) {
            System.out.println("[npb] iteration " + iteration + " of " + iterations);
            System.out.flush();
        }
        if (PACE_MILLIS > 0) {
            try {
                Thread.sleep(PACE_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
