package org.mpirunft.membership;

/**
 * How busy a node is, as it last reported. Members publish it periodically and cheaply (one small
 * message, only when it changed); it is not part of the ordered event stream.
 *
 * @param loadAverage the one-minute load average, or a negative value when unknown
 * @param slotsInUse  how many of the node's slots run ranks
 */
public record NodeLoad(double loadAverage, int slotsInUse) {
    public static final NodeLoad UNKNOWN = new NodeLoad(-1, 0);

    public NodeLoad {
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
}
