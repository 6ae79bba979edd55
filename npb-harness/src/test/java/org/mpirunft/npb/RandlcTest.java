package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RandlcTest {

    /** The generator must equal the specification's double-precision arithmetic exactly. */
    @Test
    void matchesTheSpecificationsSplitDoubleArithmetic() {
        double specSeed = 314159265.0;
        Randlc generator = new Randlc(Randlc.seedOf(specSeed), Randlc.A);
        for (int i = 0; i < 10_000; i++) {
            double expected = specRandlc(specSeed);
            specSeed = expected * 0x1p46;
            assertEquals(expected, generator.next(), 0.0, "value " + i);
        }
    }

    @Test
    void skippingAheadEqualsSteppingAhead() {
        Randlc stepped = new Randlc(271828183L, Randlc.A);
        for (int i = 0; i < 12_345; i++) {
            stepped.next();
        }
        assertEquals(stepped.seed(), Randlc.skip(271828183L, Randlc.A, 12_345));
    }

    @Test
    void fillEqualsRepeatedNext() {
        Randlc one = new Randlc(314159265L, Randlc.A);
        Randlc many = new Randlc(314159265L, Randlc.A);
        double[] values = new double[100];
        many.fill(values, 0, 100);
        for (double value : values) {
            assertEquals(one.next(), value, 0.0);
        }
        assertEquals(one.seed(), many.seed());
    }

    /** randlc as NAS-95-020 states it: 23-bit halves in double precision. */
    private static double specRandlc(double x) {
        double r23 = 0x1p-23;
        double t23 = 0x1p23;
        double r46 = r23 * r23;
        double t46 = t23 * t23;
        double a = 1220703125.0;
        double t1 = r23 * a;
        double a1 = (int) t1;
        double a2 = a - t23 * a1;
        t1 = r23 * x;
        double x1 = (int) t1;
        double x2 = x - t23 * x1;
        t1 = a1 * x2 + a2 * x1;
        double t2 = (int) (r23 * t1);
        double z = t1 - t23 * t2;
        double t3 = t23 * z + a2 * x2;
        double t4 = (int) (r46 * t3);
        double xNew = t3 - t46 * t4;
        return r46 * xNew;
    }
}
