package org.mpirunft.bridge.control;

import java.util.List;

/**
 * An order to pause the job: every rank leaves what it is doing, the world is repaired, and
 * the job rolls back to its last committed epoch. It is how a failure that MPI does not see
 * (a hung node) reaches the ranks.
 *
 * @param version format version
 * @param id      increasing from order to order, so each is acted on once
 * @param reason  for the log
 * @param spares  hosts for replacements, overriding the configured list; may be empty
 */
public record PauseOrder(int version, long id, String reason, List<String> spares) {
    public static final int VERSION = 1;

    public PauseOrder {
        if (version != VERSION) {
            throw new IllegalArgumentException("pause order version " + version + " is not supported (expected " + VERSION + ")");
        }
        reason = reason == null ? "" : reason;
        spares = spares == null ? List.of() : List.copyOf(spares);
    }

    public static PauseOrder of(long id, String reason) {
        return new PauseOrder(VERSION, id, reason, List.of());
    }
}
