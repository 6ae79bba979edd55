package org.mpirunft.npb.mg;

import org.mpirunft.npb.InProcessComm;
import org.mpirunft.npb.InProcessRanks;

/** {@link MgComm} for ranks that are threads of one JVM ({@link InProcessRanks}), so the decomposition is tested without MPI. */
final class InProcessMgComm extends InProcessComm implements MgComm {
    private static final int TAG_UP = 1;
    private static final int TAG_DOWN = 2;

    InProcessMgComm(InProcessRanks ranks) {
        super(ranks);
    }

    @Override
    public void shiftPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) {
        int up = (rank() + 1) % size();
        int down = (rank() - 1 + size()) % size();
        // Distinct tags keep the two directions apart when up and down are the same rank.
        ranks.send(toUp, 0, count, up, TAG_UP);
        ranks.send(toDown, 0, count, down, TAG_DOWN);
        ranks.receive(fromDown, 0, count, down, TAG_UP);
        ranks.receive(fromUp, 0, count, up, TAG_DOWN);
    }

    @Override
    public void allGather(double[] mine, int count, double[] all) {
        ranks.allGather(mine, count, all);
    }

    @Override
    public void max(double[] values) {
        ranks.max(values);
    }
}
