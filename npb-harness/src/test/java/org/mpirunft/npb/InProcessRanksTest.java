package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

class InProcessRanksTest {
    @Test
    void aRingShiftAnAllToAllAndASumReachEveryRank() throws Exception {
        InProcessRanks.run(3, rank -> {
            int me = rank.rank();
            int size = rank.size();
            double[] fromLeft = new double[2];
            rank.send(new double[] {9, me, me * 10}, 1, 2, (me + 1) % size, 5);
            rank.receive(fromLeft, 0, 2, (me + size - 1) % size, 5);
            int left = (me + size - 1) % size;
            assertArrayEquals(new double[] {left, left * 10}, fromLeft);

            double[] send = new double[size];
            for (int d = 0; d < size; d++) {
                send[d] = 10 * me + d;
            }
            double[] received = new double[size];
            rank.allToAll(send, received, 1);
            assertArrayEquals(new double[] {me, 10 + me, 20 + me}, received);

            double[] values = {me, -me};
            rank.sum(values);
            assertArrayEquals(new double[] {3, -3}, values);
            rank.max(values = new double[] {me});
            assertArrayEquals(new double[] {2}, values);
        });
    }

    @Test
    void anAllGatherGivesEveryRankTheFirstCountValuesOfEachInRankOrder() throws Exception {
        InProcessRanks.run(3, rank -> {
            double[] all = new double[2 * rank.size()];
            rank.allGather(new double[] {rank.rank(), -rank.rank(), 99}, 2, all);
            assertArrayEquals(new double[] {0, 0, 1, -1, 2, -2}, all);
        });
    }

    @Test
    void aReceiveOfTheWrongLengthFails() {
        ExecutionException failed = assertThrows(ExecutionException.class, () -> InProcessRanks.run(2, rank -> {
            if (rank.rank() == 0) {
                rank.send(new double[3], 0, 3, 1, 0);
            } else {
                rank.receive(new double[2], 0, 2, 0, 0);
            }
        }));
        assertTrue(failed.getCause().getMessage().contains("expected 2 values from rank 0"), failed.toString());
    }
}
