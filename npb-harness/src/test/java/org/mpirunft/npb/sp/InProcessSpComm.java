package org.mpirunft.npb.sp;

import org.mpirunft.npb.InProcessRanks;

/** {@link SpComm} over {@link InProcessRanks}: ranks are threads of the test's JVM. */
final class InProcessSpComm implements SpComm {
    private static final int TAG_UP = 1;
    private static final int TAG_DOWN = 2;

    private final InProcessRanks ranks;

    InProcessSpComm(InProcessRanks ranks) {
        this.ranks = ranks;
    }

    @Override
    public int rank() {
        return ranks.rank();
    }

    @Override
    public int size() {
        return ranks.size();
    }

    @Override
    public void shiftPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) {
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
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void allToAll(double[] send, double[] receive, int block) {
        try {
            ranks.allToAll(send, receive, block);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void sum(double[] values) {
        try {
            ranks.sum(values);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
