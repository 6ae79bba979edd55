package org.mpirunft.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NamesTest {
    @Test
    void acceptsHostLikeNamesAndJobIds() {
        for (String name : new String[] {"node1", "spare1", "10.213.0.4", "ft-20250101-120000-1234", "cg.B", "a", "x".repeat(63)}) {
            assertTrue(Names.isValid(name), name);
            assertEquals(name, Names.requireName("node", name));
        }
    }

    @Test
    void refusesWhatCannotBeAPathComponentOrAnOptionValue() {
        for (String name : new String[] {"", "..", ".hidden", "-x", "_x", "a/b", "a b", "node1\n", "é", "x".repeat(64)}) {
            assertFalse(Names.isValid(name), name);
        }
        assertFalse(Names.isValid(null));
        BadValueException e = assertThrows(BadValueException.class, () -> Names.requireName("--job", "a/b"));
        assertEquals("--job: must be 1-63 characters of A-Z a-z 0-9 . _ -, starting with a letter or digit, got 'a/b'",
                e.getMessage());
    }

    @Test
    void sanitizeMakesAValidNameFromAPmixNamespace() {
        assertEquals("prterun-node1-4242-1", Names.sanitize("prterun-node1-4242@1"));
        assertEquals("job", Names.sanitize("..job"));
        assertEquals(63, Names.sanitize("n".repeat(100)).length());
        assertTrue(Names.isValid(Names.sanitize("@x/y z")));
        assertThrows(BadValueException.class, () -> Names.sanitize("@@@"));
    }
}
