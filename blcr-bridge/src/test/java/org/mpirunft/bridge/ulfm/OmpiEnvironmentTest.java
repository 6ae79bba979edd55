package org.mpirunft.bridge.ulfm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class OmpiEnvironmentTest {
    @Test
    void theConnectBoundReachesTheCEnvironmentThatMpiInitReads() {
        OmpiEnvironment.applyDefaults();
        String value = OmpiEnvironment.get(OmpiEnvironment.CONNECT_TIMEOUT);
        String expected = System.getenv(OmpiEnvironment.CONNECT_TIMEOUT) != null
                ? System.getenv(OmpiEnvironment.CONNECT_TIMEOUT) // the user's value wins
                : Long.toString(OmpiEnvironment.CONNECT_BOUND.toSeconds());
        assertEquals(expected, value);
    }

    @Test
    void aValueTheUserSetIsKept() {
        OmpiEnvironment.setDefault("OMPI_MCA_mpirunft_test_kept", "7");
        OmpiEnvironment.setDefault("OMPI_MCA_mpirunft_test_kept", "9");
        assertEquals("7", OmpiEnvironment.get("OMPI_MCA_mpirunft_test_kept"));
    }

    @Test
    void ulfmIsOnOnlyWhenMpiFtEnableSaysSo() {
        assertFalse(OmpiEnvironment.isTrue(null), "mpirun without --with-ft ulfm sets nothing");
        assertTrue(OmpiEnvironment.isTrue("1"), "what mpirun --with-ft ulfm sets");
        assertTrue(OmpiEnvironment.isTrue("true"));
        assertFalse(OmpiEnvironment.isTrue("0"));
        assertFalse(OmpiEnvironment.isTrue("false"));
    }
}
