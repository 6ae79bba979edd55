package org.mpirunft.npb;

/** {@link SlabComm} over {@link InProcessRanks}: ranks are threads of the test's JVM. */
public class InProcessSlabComm extends InProcessComm implements SlabComm {
    private static final int TAG_UP = 1;
    private static final int TAG_DOWN = 2;

    public InProcessSlabComm(InProcessRanks ranks) {
        super(ranks);
    }

    @Override
    public final void exchangeGhosts(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) {
        int rank = ranks.rank();
        boolean hasUp = rank + 1 < ranks.size();
        boolean hasDown = rank > 0;
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
    }
}
