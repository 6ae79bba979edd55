package org.mpirunft.npb.cg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class CgMatrixTest {
    private static final int N = 1400;
    private static final int NONZER = 7;
    private static final double SHIFT = 10;

    /** Each rank builds its own rows; together they must be exactly the matrix one rank builds. */
    @Test
    void blocksOfRowsJoinToTheWholeMatrix() {
        CgMatrix whole = CgMatrix.rows(N, NONZER, SHIFT, 0, N);
        int[] bounds = {0, 350, 700, 1050, N};
        int[] columns = new int[0];
        double[] values = new double[0];
        for (int b = 0; b < 4; b++) {
            CgMatrix block = CgMatrix.rows(N, NONZER, SHIFT, bounds[b], bounds[b + 1]);
            for (int i = 0; i < block.rows; i++) {
                int row = bounds[b] + i;
                assertEquals(whole.rowStart[row + 1] - whole.rowStart[row], block.rowStart[i + 1] - block.rowStart[i],
                        "length of row " + row);
            }
            columns = concat(columns, block.columns);
            values = concat(values, block.values);
        }
        assertArrayEquals(whole.columns, columns);
        assertArrayEquals(whole.values, values, 0.0);
    }

    /** A sum of outer products is symmetric, up to the rounding of v_i * (size * v_j). */
    @Test
    void isSymmetricWithSortedRowsAndAFullDiagonal() {
        CgMatrix a = CgMatrix.rows(N, NONZER, SHIFT, 0, N);
        for (int i = 0; i < N; i++) {
            boolean diagonal = false;
            for (int e = a.rowStart[i]; e < a.rowStart[i + 1]; e++) {
                int j = a.columns[e];
                if (e > a.rowStart[i]) {
                    assertTrue(a.columns[e - 1] < j, "row " + i + " sorted, no duplicates");
                }
                diagonal |= j == i;
                double transposed = at(a, j, i);
                assertEquals(a.values[e], transposed, 1e-15 * Math.abs(a.values[e]), "A(" + i + "," + j + ")");
            }
            assertTrue(diagonal, "row " + i + " has its diagonal");
        }
    }

    private static double at(CgMatrix a, int i, int j) {
        int e = Arrays.binarySearch(a.columns, a.rowStart[i], a.rowStart[i + 1], j);
        assertTrue(e >= 0, "A(" + i + "," + j + ") is stored");
        return a.values[e];
    }

    private static int[] concat(int[] a, int[] b) {
        int[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    private static double[] concat(double[] a, double[] b) {
        double[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
