package org.mpirunft.npb.bench;

import java.time.Instant;

/**
 * One line of mpirun-ft's output with the wall-clock time the harness read it. Wall clock,
 * not {@code nanoTime}, because it is compared with the event log's times and the ranks'
 * {@code seen_at_ms}, which other processes on the same machine stamp.
 */
public record TimedLine(Instant at, String text) {
}
