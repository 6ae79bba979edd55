package org.mpirunft.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class InterfaceNamesTest {
    @Test
    void acceptsWhatIpTakesAsOneWord() {
        for (String name : new String[] {"eth0", "job0", "enp3s0f1.100", "br-lan_2", "x".repeat(15), ".a", "a.."}) {
            assertTrue(InterfaceNames.isValid(name), name);
        }
        assertEquals("job0", InterfaceNames.requireName("--job-interface", " job0 "));
    }

    @Test
    void refusesWhatTheKernelOrACommandLineWouldNot() {
        for (String name : new String[] {"", ".", "..", "eth 0", "a/b", "a:b", "x".repeat(16), "é"}) {
            assertFalse(InterfaceNames.isValid(name), name);
        }
        assertFalse(InterfaceNames.isValid(null));
        BadValueException e = assertThrows(BadValueException.class, () -> InterfaceNames.requireName("transparent.interface", ".."));
        assertEquals("transparent.interface: must be a network interface name (1-15 letters, digits, '_', '.', '-', not '.' or '..'),"
                + " got '..'", e.getMessage());
    }
}
