package org.mpirunft.npb.bt;

import org.mpirunft.npb.InProcessRanks;

/** {@link BtComm} over {@link InProcessRanks}: ranks are threads of the test's JVM. */
final class InProcessBtComm implements BtComm {
    private static final int TAG_UP = 1;
    private static final int TAG_DOWN = 2;

    private final InProcessRanks ranks;

    InProcessBtComm(InProcessRanks ranks) {
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
    public void swapPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp) {
        int rank = rank();
        boolean hasUp = rank + 1 < size();
        boolean hasDown = rank > 0;
        if (hasUp) {
            ranks.send(toUp, 0, toUp.length, rank + 1, TAG_UP);
        }
        if (hasDown) {
            ranks.send(toDown, 0, toDown.length, rank - 1, TAG_DOWN);
        }
        try {
            if (hasDown) {
                ranks.receive(fromDown, 0, fromDown.length, rank - 1, TAG_UP);
            }
            if (hasUp) {
                ranks.receive(fromUp, 0, fromUp.length, rank + 1, TAG_DOWN);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void allToAll(double[] send, double[] receive, int block) {
        try {
            ranks.allToAll(send, receive, block);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void sum(double[] values) {
        try {
            ranks.sum(values);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
