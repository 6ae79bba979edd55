package org.mpirunft.npb.is;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.mpirunft.npb.NpbClass;

class IsKernelTest {

    /** A rank generates its share by jumping ahead; the shares must join to the one sequence. */
    @ParameterizedTest
    @EnumSource(value = NpbClass.class, names = {"S", "W"})
    void sharesGeneratedByJumpingAheadJoinToTheSequence(NpbClass cls) {
        IsKernel.Problem problem = IsKernel.Problem.of(cls);
        int total = (int) problem.totalKeys();
        int[] sequence = new int[total];
        IsKernel.generate(sequence, 0, problem.maxKey());
        int[] joined = new int[0];
        for (int rank = 0; rank < 4; rank++) {
            int[] share = new int[total / 4];
            IsKernel.generate(share, (long) rank * share.length, problem.maxKey());
            joined = Arrays.copyOf(joined, joined.length + share.length);
            System.arraycopy(share, 0, joined, joined.length - share.length, share.length);
        }
        assertArrayEquals(sequence, joined);
    }

    /**
     * The generator, the per-iteration change to the keys and the per-class rank offsets,
     * checked against the published ranks by plain counting on one process.
     */
    @ParameterizedTest
    @EnumSource(value = NpbClass.class, names = {"S", "W"})
    void publishedTestRanksHoldAtEveryIteration(NpbClass cls) {
        IsKernel.Problem problem = IsKernel.Problem.of(cls);
        int[] keys = new int[(int) problem.totalKeys()];
        IsKernel.generate(keys, 0, problem.maxKey());
        int[] atMost = new int[problem.maxKey()];
        for (int iteration = 1; iteration <= IsKernel.ITERATIONS; iteration++) {
            keys[iteration] = iteration;
            keys[iteration + IsKernel.ITERATIONS] = problem.maxKey() - iteration;
            Arrays.fill(atMost, 0);
            for (int key : keys) {
                atMost[key]++;
            }
            for (int v = 1; v < atMost.length; v++) {
                atMost[v] += atMost[v - 1];
            }
            for (int t = 0; t < KeyRanking.TESTS; t++) {
                int key = keys[problem.testIndex()[t]];
                assertEquals(problem.expectedRank(t, iteration), atMost[key - 1], "iteration " + iteration + ", test key " + t);
            }
        }
    }
}
