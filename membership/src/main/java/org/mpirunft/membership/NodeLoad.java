package org.mpirunft.membership;

/**
 * How busy a node is, and whether it takes work, as it last reported. Members publish it
 * periodically and cheaply (one small message, only when it changed); it is not part of the
 * ordered event stream. A node's own daemon owns its drain, as Slurm's node state: the operator
 * drains it there ({@code ftd drain}), or its health check does.
 *
 * @param loadAverage the one-minute load average, or a negative value when unknown
 * @param slotsInUse  how many of the node's slots run ranks
 * @param drain       why the node is drained (the operator's reason, or the health check that
 *                    failed), empty while it is in service: a drained node gets no new rank, and
 *                    the ranks it has are moved off it
 */
public record NodeLoad(double loadAverage, int slotsInUse, String drain) {
    public static final NodeLoad UNKNOWN = new NodeLoad(-1, 0);

    /** A node in service. */
    public NodeLoad(double loadAverage, int slotsInUse) {
        this(loadAverage, slotsInUse, "");
    }

    public NodeLoad {
        drain = drain == null ? "" : drain;
        if (slotsInUse < 0) {
            throw new IllegalArgumentException("slotsInUse must be >= 0, got " + slotsInUse);
        }
        if (Double.isNaN(loadAverage) || Double.isInfinite(loadAverage)) {
            throw new IllegalArgumentException("loadAverage must be a finite number, got " + loadAverage);
        }
    }

    public boolean isKnown() {
        return loadAverage >= 0;
    }

    public boolean isDrained() {
        return !drain.isEmpty();
    }

    /** The same load, drained for {@code reason} (empty: back in service). */
    public NodeLoad withDrain(String reason) {
        return new NodeLoad(loadAverage, slotsInUse, reason);
    }
}
