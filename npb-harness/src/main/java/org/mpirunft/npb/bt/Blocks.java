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
     * Solves B X = [C | r] in place: C becomes B^-1 C and r becomes B^-1 r; B is left as it was
     * (its eliminated values are not needed).
     */
    static void invertIntoBoth(double[] b, int bo, double[] c, int co, double[] r, int ro) {
        // Gauss-Jordan, pivot p = 0..4: scale row p by 1 / B[p][p], then subtract coeff = B[i][p]
        // times row p from every other row i in order 0..4. Unrolled with the blocks in locals
        // (B is not needed afterwards), operation by operation in that order.
        double b00 = b[bo + 0], b01 = b[bo + 1], b02 = b[bo + 2], b03 = b[bo + 3], b04 = b[bo + 4];
        double b10 = b[bo + 5], b11 = b[bo + 6], b12 = b[bo + 7], b13 = b[bo + 8], b14 = b[bo + 9];
        double b20 = b[bo + 10], b21 = b[bo + 11], b22 = b[bo + 12], b23 = b[bo + 13], b24 = b[bo + 14];
        double b30 = b[bo + 15], b31 = b[bo + 16], b32 = b[bo + 17], b33 = b[bo + 18], b34 = b[bo + 19];
        double b40 = b[bo + 20], b41 = b[bo + 21], b42 = b[bo + 22], b43 = b[bo + 23], b44 = b[bo + 24];
        double c00 = c[co + 0], c01 = c[co + 1], c02 = c[co + 2], c03 = c[co + 3], c04 = c[co + 4];
        double c10 = c[co + 5], c11 = c[co + 6], c12 = c[co + 7], c13 = c[co + 8], c14 = c[co + 9];
        double c20 = c[co + 10], c21 = c[co + 11], c22 = c[co + 12], c23 = c[co + 13], c24 = c[co + 14];
        double c30 = c[co + 15], c31 = c[co + 16], c32 = c[co + 17], c33 = c[co + 18], c34 = c[co + 19];
        double c40 = c[co + 20], c41 = c[co + 21], c42 = c[co + 22], c43 = c[co + 23], c44 = c[co + 24];
        double r0 = r[ro + 0], r1 = r[ro + 1], r2 = r[ro + 2], r3 = r[ro + 3], r4 = r[ro + 4];
        double pivot;
        double coeff;
        pivot = 1.0 / b00;
        b01 = b01 * pivot;
        b02 = b02 * pivot;
        b03 = b03 * pivot;
        b04 = b04 * pivot;
        c00 = c00 * pivot;
        c01 = c01 * pivot;
        c02 = c02 * pivot;
        c03 = c03 * pivot;
        c04 = c04 * pivot;
        r0 = r0 * pivot;
        coeff = b10;
        b11 = b11 - coeff * b01;
        b12 = b12 - coeff * b02;
        b13 = b13 - coeff * b03;
        b14 = b14 - coeff * b04;
        c10 = c10 - coeff * c00;
        c11 = c11 - coeff * c01;
        c12 = c12 - coeff * c02;
        c13 = c13 - coeff * c03;
        c14 = c14 - coeff * c04;
        r1 = r1 - coeff * r0;
        coeff = b20;
        b21 = b21 - coeff * b01;
        b22 = b22 - coeff * b02;
        b23 = b23 - coeff * b03;
        b24 = b24 - coeff * b04;
        c20 = c20 - coeff * c00;
        c21 = c21 - coeff * c01;
        c22 = c22 - coeff * c02;
        c23 = c23 - coeff * c03;
        c24 = c24 - coeff * c04;
        r2 = r2 - coeff * r0;
        coeff = b30;
        b31 = b31 - coeff * b01;
        b32 = b32 - coeff * b02;
        b33 = b33 - coeff * b03;
        b34 = b34 - coeff * b04;
        c30 = c30 - coeff * c00;
        c31 = c31 - coeff * c01;
        c32 = c32 - coeff * c02;
        c33 = c33 - coeff * c03;
        c34 = c34 - coeff * c04;
        r3 = r3 - coeff * r0;
        coeff = b40;
        b41 = b41 - coeff * b01;
        b42 = b42 - coeff * b02;
        b43 = b43 - coeff * b03;
        b44 = b44 - coeff * b04;
        c40 = c40 - coeff * c00;
        c41 = c41 - coeff * c01;
        c42 = c42 - coeff * c02;
        c43 = c43 - coeff * c03;
        c44 = c44 - coeff * c04;
        r4 = r4 - coeff * r0;
        pivot = 1.0 / b11;
        b12 = b12 * pivot;
        b13 = b13 * pivot;
        b14 = b14 * pivot;
        c10 = c10 * pivot;
        c11 = c11 * pivot;
        c12 = c12 * pivot;
        c13 = c13 * pivot;
        c14 = c14 * pivot;
        r1 = r1 * pivot;
        coeff = b01;
        b02 = b02 - coeff * b12;
        b03 = b03 - coeff * b13;
        b04 = b04 - coeff * b14;
        c00 = c00 - coeff * c10;
        c01 = c01 - coeff * c11;
        c02 = c02 - coeff * c12;
        c03 = c03 - coeff * c13;
        c04 = c04 - coeff * c14;
        r0 = r0 - coeff * r1;
        coeff = b21;
        b22 = b22 - coeff * b12;
        b23 = b23 - coeff * b13;
        b24 = b24 - coeff * b14;
        c20 = c20 - coeff * c10;
        c21 = c21 - coeff * c11;
        c22 = c22 - coeff * c12;
        c23 = c23 - coeff * c13;
        c24 = c24 - coeff * c14;
        r2 = r2 - coeff * r1;
        coeff = b31;
        b32 = b32 - coeff * b12;
        b33 = b33 - coeff * b13;
        b34 = b34 - coeff * b14;
        c30 = c30 - coeff * c10;
        c31 = c31 - coeff * c11;
        c32 = c32 - coeff * c12;
        c33 = c33 - coeff * c13;
        c34 = c34 - coeff * c14;
        r3 = r3 - coeff * r1;
        coeff = b41;
        b42 = b42 - coeff * b12;
        b43 = b43 - coeff * b13;
        b44 = b44 - coeff * b14;
        c40 = c40 - coeff * c10;
        c41 = c41 - coeff * c11;
        c42 = c42 - coeff * c12;
        c43 = c43 - coeff * c13;
        c44 = c44 - coeff * c14;
        r4 = r4 - coeff * r1;
        pivot = 1.0 / b22;
        b23 = b23 * pivot;
        b24 = b24 * pivot;
        c20 = c20 * pivot;
        c21 = c21 * pivot;
        c22 = c22 * pivot;
        c23 = c23 * pivot;
        c24 = c24 * pivot;
        r2 = r2 * pivot;
        coeff = b02;
        b03 = b03 - coeff * b23;
        b04 = b04 - coeff * b24;
        c00 = c00 - coeff * c20;
        c01 = c01 - coeff * c21;
        c02 = c02 - coeff * c22;
        c03 = c03 - coeff * c23;
        c04 = c04 - coeff * c24;
        r0 = r0 - coeff * r2;
        coeff = b12;
        b13 = b13 - coeff * b23;
        b14 = b14 - coeff * b24;
        c10 = c10 - coeff * c20;
        c11 = c11 - coeff * c21;
        c12 = c12 - coeff * c22;
        c13 = c13 - coeff * c23;
        c14 = c14 - coeff * c24;
        r1 = r1 - coeff * r2;
        coeff = b32;
        b33 = b33 - coeff * b23;
        b34 = b34 - coeff * b24;
        c30 = c30 - coeff * c20;
        c31 = c31 - coeff * c21;
        c32 = c32 - coeff * c22;
        c33 = c33 - coeff * c23;
        c34 = c34 - coeff * c24;
        r3 = r3 - coeff * r2;
        coeff = b42;
        b43 = b43 - coeff * b23;
        b44 = b44 - coeff * b24;
        c40 = c40 - coeff * c20;
        c41 = c41 - coeff * c21;
        c42 = c42 - coeff * c22;
        c43 = c43 - coeff * c23;
        c44 = c44 - coeff * c24;
        r4 = r4 - coeff * r2;
        pivot = 1.0 / b33;
        b34 = b34 * pivot;
        c30 = c30 * pivot;
        c31 = c31 * pivot;
        c32 = c32 * pivot;
        c33 = c33 * pivot;
        c34 = c34 * pivot;
        r3 = r3 * pivot;
        coeff = b03;
        b04 = b04 - coeff * b34;
        c00 = c00 - coeff * c30;
        c01 = c01 - coeff * c31;
        c02 = c02 - coeff * c32;
        c03 = c03 - coeff * c33;
        c04 = c04 - coeff * c34;
        r0 = r0 - coeff * r3;
        coeff = b13;
        b14 = b14 - coeff * b34;
        c10 = c10 - coeff * c30;
        c11 = c11 - coeff * c31;
        c12 = c12 - coeff * c32;
        c13 = c13 - coeff * c33;
        c14 = c14 - coeff * c34;
        r1 = r1 - coeff * r3;
        coeff = b23;
        b24 = b24 - coeff * b34;
        c20 = c20 - coeff * c30;
        c21 = c21 - coeff * c31;
        c22 = c22 - coeff * c32;
        c23 = c23 - coeff * c33;
        c24 = c24 - coeff * c34;
        r2 = r2 - coeff * r3;
        coeff = b43;
        b44 = b44 - coeff * b34;
        c40 = c40 - coeff * c30;
        c41 = c41 - coeff * c31;
        c42 = c42 - coeff * c32;
        c43 = c43 - coeff * c33;
        c44 = c44 - coeff * c34;
        r4 = r4 - coeff * r3;
        pivot = 1.0 / b44;
        c40 = c40 * pivot;
        c41 = c41 * pivot;
        c42 = c42 * pivot;
        c43 = c43 * pivot;
        c44 = c44 * pivot;
        r4 = r4 * pivot;
        coeff = b04;
        c00 = c00 - coeff * c40;
        c01 = c01 - coeff * c41;
        c02 = c02 - coeff * c42;
        c03 = c03 - coeff * c43;
        c04 = c04 - coeff * c44;
        r0 = r0 - coeff * r4;
        coeff = b14;
        c10 = c10 - coeff * c40;
        c11 = c11 - coeff * c41;
        c12 = c12 - coeff * c42;
        c13 = c13 - coeff * c43;
        c14 = c14 - coeff * c44;
        r1 = r1 - coeff * r4;
        coeff = b24;
        c20 = c20 - coeff * c40;
        c21 = c21 - coeff * c41;
        c22 = c22 - coeff * c42;
        c23 = c23 - coeff * c43;
        c24 = c24 - coeff * c44;
        r2 = r2 - coeff * r4;
        coeff = b34;
        c30 = c30 - coeff * c40;
        c31 = c31 - coeff * c41;
        c32 = c32 - coeff * c42;
        c33 = c33 - coeff * c43;
        c34 = c34 - coeff * c44;
        r3 = r3 - coeff * r4;
        c[co + 0] = c00;
        c[co + 1] = c01;
        c[co + 2] = c02;
        c[co + 3] = c03;
        c[co + 4] = c04;
        c[co + 5] = c10;
        c[co + 6] = c11;
        c[co + 7] = c12;
        c[co + 8] = c13;
        c[co + 9] = c14;
        c[co + 10] = c20;
        c[co + 11] = c21;
        c[co + 12] = c22;
        c[co + 13] = c23;
        c[co + 14] = c24;
        c[co + 15] = c30;
        c[co + 16] = c31;
        c[co + 17] = c32;
        c[co + 18] = c33;
        c[co + 19] = c34;
        c[co + 20] = c40;
        c[co + 21] = c41;
        c[co + 22] = c42;
        c[co + 23] = c43;
        c[co + 24] = c44;
        r[ro + 0] = r0;
        r[ro + 1] = r1;
        r[ro + 2] = r2;
        r[ro + 3] = r3;
        r[ro + 4] = r4;
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
