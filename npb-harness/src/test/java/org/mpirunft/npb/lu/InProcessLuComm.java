package org.mpirunft.npb.lu;

import org.mpirunft.npb.InProcessRanks;
import org.mpirunft.npb.InProcessSlabComm;

/** {@link LuComm} for ranks that are threads of one JVM ({@link InProcessRanks}). */
final class InProcessLuComm extends InProcessSlabComm implements LuComm {
    InProcessLuComm(InProcessRanks ranks) {
        super(ranks);
    }

    @Override
    public void sendRow(double[] row, int count, int destination, int tag) {
        ranks.send(row, 0, count, destination, tag);
    }

    @Override
    public void receiveRow(double[] row, int count, int source, int tag) {
        ranks.receive(row, 0, count, source, tag);
    }
}
