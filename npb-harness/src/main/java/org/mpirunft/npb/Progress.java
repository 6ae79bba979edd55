package org.mpirunft.npb;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
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
    /**
     * {@code NPB_PACE_UNTIL}: a path; once it exists the pace ends, within 200 ms even in the
     * middle of a pause. A test that acts during a run (a rolling upgrade) paces the run slow
     * enough to outlast its act on any machine, then lets the rest of the run go at full speed.
     */
    static final String PACE_UNTIL_VARIABLE = "NPB_PACE_UNTIL";
    private static final long PACE_MILLIS = pace(System.getenv(PACE_VARIABLE));
    private static final Optional<Path> PACE_UNTIL = paceUntil(System.getenv(PACE_UNTIL_VARIABLE));
    private static final long UNTIL_LOOK_MILLIS = 200;

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

    static Optional<Path> paceUntil(String value) {
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(Path.of(value.strip()));
    }

    /** Call at the end of each iteration body. */
    public static void iterationDone(Intracomm world, long iteration, long iterations) throws MPIException {
        if (world.getRank() == 0) {
            System.out.println("[npb] iteration " + iteration + " of " + iterations);
            System.out.flush();
        }
        try {
            pause(PACE_MILLIS, PACE_UNTIL);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Sleeps {@code millis}, or less once {@code until} exists. */
    static void pause(long millis, Optional<Path> until) throws InterruptedException {
        long end = System.nanoTime() + millis * 1_000_000;
        for (long left = millis; left > 0; left = (end - System.nanoTime()) / 1_000_000) {
            if (until.isPresent() && Files.exists(until.get())) {
                return;
            }
            Thread.sleep(until.isPresent() ? Math.min(left, UNTIL_LOOK_MILLIS) : left);
        }
    }
}
