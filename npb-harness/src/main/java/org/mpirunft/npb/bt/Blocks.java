package org.mpirunft.npb.bt;

/**
 * 5x5 block arithmetic of the block-tridiagonal solves. A block is 25 consecutive doubles,
 * row-major; a vector 5. Each routine does its operations in NPB's order (Gauss-Jordan
 * elimination without pivoting, products summed left to right), so rounding matches NPB's.
 */
final class Blocks {
    private Blocks() {
    }

    /**
     * Solves B X = [C | r] in place: C becomes B^-1 C and r becomes B^-1 r; B is destroyed.
     */
    static void invertIntoBoth(double[] b, int bo, double[] c, int co, double[] r, int ro) {
        for (int p = 0; p < 5; p++) {
            int pr = 5 * p;
            double pivot = 1.0 / b[bo + pr + p];
            for (int q = p + 1; q < 5; q++) {
                b[bo + pr + q] = b[bo + pr + q] * pivot;
            }
            for (int q = 0; q < 5; q++) {
                c[co + pr + q] = c[co + pr + q] * pivot;
            }
            r[ro + p] = r[ro + p] * pivot;
            for (int i = 0; i < 5; i++) {
                if (i == p) {
                    continue;
                }
                int ir = 5 * i;
                double coeff = b[bo + ir + p];
                for (int q = p + 1; q < 5; q++) {
                    b[bo + ir + q] = b[bo + ir + q] - coeff * b[bo + pr + q];
                }
                for (int q = 0; q < 5; q++) {
                    c[co + ir + q] = c[co + ir + q] - coeff * c[co + pr + q];
                }
                r[ro + i] = r[ro + i] - coeff * r[ro + p];
            }
        }
    }

    /** r = r - A x. */
    static void subtractProduct(double[] a, int ao, double[] x, int xo, double[] r, int ro) {
        for (int i = 0; i < 5; i++) {
            int row = ao + 5 * i;
            r[ro + i] = r[ro + i] - a[row] * x[xo] - a[row + 1] * x[xo + 1] - a[row + 2] * x[xo + 2]
                    - a[row + 3] * x[xo + 3] - a[row + 4] * x[xo + 4];
        }
    }

    /** B = B - A C. */
    static void subtractMatrixProduct(double[] a, int ao, double[] c, int co, double[] b, int bo) {
        for (int j = 0; j < 5; j++) {
            for (int i = 0; i < 5; i++) {
                int row = ao + 5 * i;
                b[bo + 5 * i + j] = b[bo + 5 * i + j] - a[row] * c[co + j] - a[row + 1] * c[co + 5 + j]
                        - a[row + 2] * c[co + 10 + j] - a[row + 3] * c[co + 15 + j] - a[row + 4] * c[co + 20 + j];
            }
        }
    }
}
