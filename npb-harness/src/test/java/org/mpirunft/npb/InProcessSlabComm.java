package org.mpirunft.npb;

/** {@link SlabComm} over {@link InProcessRanks}: ranks are threads of the test's JVM. */
public class InProcessSlabComm implements SlabComm {
    private static final int TAG_UP = 1;
    private static final int TAG_DOWN = 2;

    protected final InProcessRanks ranks;

    public InProcessSlabComm(InProcessRanks ranks) {
        this.ranks = ranks;
    }

    @Override
    public final int rank() {
        return ranks.rank();
    }

    @Override
    public final int size() {
        return ranks.size();
    }

    @Override
    public final void exchangeGhosts(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) {
        int rank = ranks.rank();
        boolean hasUp = rank + 1 < ranks.size();
        boolean hasDown = rank > 0;
        try {
            if (hasUp) {
                ranks.send(toUp, 0, count, rank + 1, TAG_UP);
            }
            if (hasDown) {
                ranks.send(toDown, 0, count, rank - 1, TAG_DOWN);
                ranks.receive(fromDown, 0, count, rank - 1, TAG_UP);
            }
            if (hasUp) {
                ranks.receive(fromUp, 0, count, rank + 1, TAG_DOWN);
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    @Override
    public final void allToAll(double[] send, double[] receive, int block) {
        try {
            ranks.allToAll(send, receive, block);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    @Override
    public final void sum(double[] values) {
        try {
            ranks.sum(values);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    protected static IllegalStateException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new IllegalStateException("interrupted", e);
    }
}
