package org.mpirunft.npb.lu;

import org.mpirunft.npb.InProcessRanks;

/** {@link LuComm} for ranks that are threads of one JVM ({@link InProcessRanks}). */
final class InProcessLuComm implements LuComm {
    private static final int TAG_TO_UP = 1;
    private static final int TAG_TO_DOWN = 2;

    private final InProcessRanks rank;

    InProcessLuComm(InProcessRanks rank) {
        this.rank = rank;
    }

    @Override
    public int rank() {
        return rank.rank();
    }

    @Override
    public int size() {
        return rank.size();
    }

    @Override
    public void exchangeHalo(double[] toDown, double[] fromDown, double[] toUp, double[] fromUp, int count) {
        if (toDown != null) {
            rank.send(toDown, 0, count, rank.rank() - 1, TAG_TO_DOWN);
        }
        if (toUp != null) {
            rank.send(toUp, 0, count, rank.rank() + 1, TAG_TO_UP);
        }
        try {
            if (fromDown != null) {
                rank.receive(fromDown, 0, count, rank.rank() - 1, TAG_TO_UP);
            }
            if (fromUp != null) {
                rank.receive(fromUp, 0, count, rank.rank() + 1, TAG_TO_DOWN);
            }
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    @Override
    public void sendRow(double[] row, int count, int destination, int tag) {
        rank.send(row, 0, count, destination, tag);
    }

    @Override
    public void receiveRow(double[] row, int count, int source, int tag) {
        try {
            rank.receive(row, 0, count, source, tag);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    @Override
    public void sum(double[] values) {
        try {
            rank.sum(values);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    private static IllegalStateException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new IllegalStateException("interrupted", e);
    }
}
