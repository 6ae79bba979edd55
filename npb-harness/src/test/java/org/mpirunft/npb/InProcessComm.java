package org.mpirunft.npb;

/**
 * What the kernels' communication over {@link InProcessRanks} (FT's, MG's, the slabs' of BT, LU
 * and SP) has in common, as {@link MpiComm} is over MPI: the rank and size, and the collectives
 * more than one kernel uses.
 */
public abstract class InProcessComm {
    protected final InProcessRanks ranks;

    protected InProcessComm(InProcessRanks ranks) {
        this.ranks = ranks;
    }

    public final int rank() {
        return ranks.rank();
    }

    public final int size() {
        return ranks.size();
    }

    /** Block d of {@code send} ({@code block} values) goes to rank d, whose block r of {@code receive} it becomes. */
    public final void allToAll(double[] send, double[] receive, int block) {
        ranks.allToAll(send, receive, block);
    }

    /** Element-wise sum over the ranks, in place. */
    public final void sum(double[] values) {
        ranks.sum(values);
    }
}
