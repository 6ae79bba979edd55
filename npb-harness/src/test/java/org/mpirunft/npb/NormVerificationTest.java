package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NormVerificationTest {
    @Test
    void everyNormWithinTheToleranceVerifiesAndTheBlockHasOneLinePerNorm() {
        NormVerification check = new NormVerification(NpbClass.S)
                .compare("Comparison of RMS-norms of residual", new double[] {1.0, 2.0 * (1 + 5e-9)}, new double[] {1.0, 2.0})
                .compare("Comparison of surface integral", 7.8418928865937083, 7.8418928865937083);
        assertTrue(check.verified(), check.detail());
        assertEquals("""
                 Verification being performed for class S
                 accuracy setting for epsilon =  1.0000000000000E-08
                 Comparison of RMS-norms of residual
                           1 1.0000000000000E+00 1.0000000000000E+00 0.0000000000000E+00
                           2 2.0000000100000E+00 2.0000000000000E+00 4.9999999696126E-09
                 Comparison of surface integral
                             7.8418928865937E+00 7.8418928865937E+00 0.0000000000000E+00
                 Verification Successful
                """, check.detail());
    }

    @Test
    void oneNormOutsideOrNotANumberFailsAndNothingComparedIsNoVerification() {
        NormVerification off = new NormVerification(NpbClass.A).compare("norms", new double[] {1.0, 1.0 + 2e-8}, new double[] {1.0, 1.0});
        assertFalse(off.verified());
        assertTrue(off.detail().contains(" FAILURE:  2") && off.detail().endsWith(" Verification failed\n"), off.detail());
        assertFalse(new NormVerification(NpbClass.A).compare("norms", new double[] {Double.NaN}, new double[] {1.0}).verified(), "NaN");
        assertFalse(new NormVerification(NpbClass.A).verified(), "no norm compared");
        assertThrows(IllegalArgumentException.class, () -> new NormVerification(NpbClass.A).compare("norms", new double[2], new double[3]));
    }
}
