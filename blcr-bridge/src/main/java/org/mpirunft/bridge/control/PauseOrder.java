package org.mpirunft.bridge.control;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An order to pause the job: every rank leaves what it is doing, the world is repaired, and
 * the job rolls back to its last committed epoch. It is how a failure that MPI does not see
 * (a hung node, a cut link) reaches the ranks.
 *
 * @param version   format version
 * @param id        increasing from order to order, so each is acted on once
 * @param reason    for the log
 * @param spares    hosts for replacements, overriding the configured list; may be empty
 * @param lostRanks each rank the runtime's detector declared lost, with the node it was lost
 *                  on. MPI may not know yet (a hung rank answers nothing and raises no error),
 *                  so every survivor tells its MPI library they failed before the world is
 *                  shrunk. The node tells an order a recovery already served (the rank runs
 *                  elsewhere now) from a new failure of the same rank. Empty for a pause with
 *                  no failure.
 */
public record PauseOrder(int version, long id, String reason, List<String> spares, Map<Integer, String> lostRanks) {
    public static final int VERSION = 1;

    public PauseOrder {
        if (version != VERSION) {
            throw new IllegalArgumentException("pause order version " + version + " is not supported (expected " + VERSION + ")");
        }
        reason = reason == null ? "" : reason;
        spares = spares == null ? List.of() : List.copyOf(spares);
        lostRanks = lostRanks == null ? Map.of() : java.util.Collections.unmodifiableMap(new TreeMap<>(lostRanks));
        lostRanks.forEach((rank, node) -> {
            if (rank < 0 || node == null || node.isBlank()) {
                throw new IllegalArgumentException("pause order " + id + ": lost rank " + rank + " needs a rank >= 0 and a node, got "
                        + node);
            }
        });
    }

    /** A pause with nobody lost: every rank rolls back in place. */
    public static PauseOrder of(long id, String reason) {
        return new PauseOrder(VERSION, id, reason, List.of(), Map.of());
    }
}
