package org.mpirunft.npb.cg;

import java.util.Arrays;
import org.mpirunft.npb.Randlc;

/**
 * A block of rows of CG's matrix (NPB "makea"), in compressed sparse rows with global column
 * numbers, sorted within each row.
 *
 * <p>The matrix is a sum of n weighted outer products plus a shifted diagonal:
 * A = sum_k ratio^k v_k v_k^T + (rcond - shift) I, with ratio = rcond^(1/n). Vector v_k has
 * {@code nonzer} random nonzeros, drawn as (value, position) pairs from the generator (seed
 * 314159265, multiplier 5^13, one value drawn and dropped first, as the benchmark's main
 * program does), where a position is floor(u * 2^ceil(log2 n)) and positions past n or already
 * taken are drawn again; then element k of v_k is set to 0.5, appended if absent.
 *
 * <p>The vectors form one sequence from one generator, so every rank walks all n of them and
 * keeps the entries that fall in its rows: local, deterministic, and the same matrix for every
 * rank count. Duplicate entries are summed in the order of k, so the sums do not depend on the
 * partition either.
 */
final class CgMatrix {
    static final long SEED = 314159265L;
    static final double RCOND = 0.1;

    final int firstRow;
    final int rows;
    /** Row i's entries are {@code rowStart[i]} to {@code rowStart[i + 1] - 1}. */
    final int[] rowStart;
    final int[] columns;
    final double[] values;

    private CgMatrix(int firstRow, int rows, int[] rowStart, int[] columns, double[] values) {
        this.firstRow = firstRow;
        this.rows = rows;
        this.rowStart = rowStart;
        this.columns = columns;
        this.values = values;
    }

    long nonzeros() {
        return rowStart[rows];
    }

    /** Rows {@code firstRow} to {@code endRow - 1} of the n x n matrix. */
    static CgMatrix rows(int n, int nonzer, double shift, int firstRow, int endRow) {
        int rows = endRow - firstRow;
        OuterProducts products = new OuterProducts(n, nonzer);
        // Pass 1 counts the entries each row receives; pass 2, over the same sequence, fills them.
        int[] rowStart = new int[rows + 1];
        products.restart();
        for (int k = 0; k < n; k++) {
            products.next(k);
            for (int a = 0; a < products.count; a++) {
                int row = products.positions[a];
                if (row >= firstRow && row < endRow) {
                    rowStart[row - firstRow + 1] += products.count;
                }
            }
        }
        for (int i = 0; i < rows; i++) {
            rowStart[i + 1] += rowStart[i];
        }
        int[] columns = new int[rowStart[rows]];
        double[] values = new double[rowStart[rows]];
        int[] fill = Arrays.copyOf(rowStart, rows);
        double ratio = Math.pow(RCOND, 1.0 / n);
        double size = 1.0;
        products.restart();
        for (int k = 0; k < n; k++) {
            products.next(k);
            for (int b = 0; b < products.count; b++) {
                int column = products.positions[b];
                double scale = size * products.elements[b];
                for (int a = 0; a < products.count; a++) {
                    int row = products.positions[a];
                    if (row >= firstRow && row < endRow) {
                        int at = fill[row - firstRow]++;
                        columns[at] = column;
                        values[at] = products.elements[a] * scale;
                    }
                }
            }
            size *= ratio;
        }
        return compact(firstRow, rows, rowStart, columns, values, RCOND - shift);
    }

    /**
     * Sorts each row by column, sums duplicates in their order of generation, adds
     * {@code diagonal} to the diagonal, and trims the arrays. A row's entries are keyed by
     * (column, position in the row), so the sort is stable without a comparator.
     */
    private static CgMatrix compact(int firstRow, int rows, int[] rowStart, int[] columns, double[] values,
                                    double diagonal) {
        int longest = 0;
        for (int i = 0; i < rows; i++) {
            longest = Math.max(longest, rowStart[i + 1] - rowStart[i]);
        }
        long[] keys = new long[longest];
        double[] rowValues = new double[longest];
        int out = 0;
        int start = 0;
        for (int i = 0; i < rows; i++) {
            int end = rowStart[i + 1];
            int length = end - start;
            for (int e = 0; e < length; e++) {
                keys[e] = ((long) columns[start + e] << 32) | e;
                rowValues[e] = values[start + e];
            }
            Arrays.sort(keys, 0, length);
            rowStart[i] = out;
            int diagonalColumn = firstRow + i;
            for (int e = 0; e < length; ) {
                int column = (int) (keys[e] >>> 32);
                double sum = 0.0;
                for (; e < length && (int) (keys[e] >>> 32) == column; e++) {
                    sum += rowValues[(int) keys[e]];
                }
                if (column == diagonalColumn) {
                    sum += diagonal;
                }
                columns[out] = column;
                values[out] = sum;
                out++;
            }
            start = end;
        }
        rowStart[rows] = out;
        return new CgMatrix(firstRow, rows, rowStart, Arrays.copyOf(columns, out), Arrays.copyOf(values, out));
    }

    /** q = A p for this block of rows; p is the whole vector, q this block's part of it. */
    void multiply(double[] p, double[] q) {
        int[] start = rowStart;
        int[] cols = columns;
        double[] vals = values;
        for (int i = 0; i < rows; i++) {
            double sum = 0.0;
            for (int e = start[i], end = start[i + 1]; e < end; e++) {
                sum += vals[e] * p[cols[e]];
            }
            q[i] = sum;
        }
    }

    /** The sparse vectors v_k of the construction, one after the other ("sprnvc" and "vecset"). */
    private static final class OuterProducts {
        private final int n;
        private final int nonzer;
        private final int positionRange;
        final int[] positions;
        final double[] elements;
        int count;
        private Randlc generator;

        OuterProducts(int n, int nonzer) {
            this.n = n;
            this.nonzer = nonzer;
            // The smallest power of two at least n: positions are drawn from it and rejected past n.
            this.positionRange = Integer.highestOneBit(n - 1) << 1;
            this.positions = new int[nonzer + 1];
            this.elements = new double[nonzer + 1];
        }

        void restart() {
            generator = new Randlc(SEED, Randlc.A);
            generator.next();
        }

        /** v_k: {@code nonzer} random distinct positions, then element k set to 0.5. */
        void next(int k) {
            count = 0;
            while (count < nonzer) {
                double element = generator.next();
                int position = (int) (positionRange * generator.next());
                if (position >= n || contains(position)) {
                    continue;
                }
                positions[count] = position;
                elements[count] = element;
                count++;
            }
            for (int a = 0; a < count; a++) {
                if (positions[a] == k) {
                    elements[a] = 0.5;
                    return;
                }
            }
            positions[count] = k;
            elements[count] = 0.5;
            count++;
        }

        private boolean contains(int position) {
            for (int a = 0; a < count; a++) {
                if (positions[a] == position) {
                    return true;
                }
            }
            return false;
        }
    }
}
