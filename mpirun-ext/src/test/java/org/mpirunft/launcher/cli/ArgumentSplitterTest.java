package org.mpirunft.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArgumentSplitterTest {
    /** A few of mpirun-ft's own options and their arities. */
    private static final Map<String, Integer> OWN = Map.of("--spares", 1, "-np", 1, "--host", 1, "--debug", 0, "--recovery", 1);

    private static ArgumentSplitter.Split split(String... args) {
        return ArgumentSplitter.split(List.of(args), OWN::get);
    }

    @Test
    void passesUnknownOptionsThroughInOrderWithTheirValues() {
        ArgumentSplitter.Split s = split("--mca", "btl", "tcp,self", "-np", "4", "-x", "OMP_NUM_THREADS",
                "--spares", "1", "--bind-to", "core", "--prtemca", "k", "v", "--oversubscribe", "./a.out", "-x", "1");
        assertEquals(List.of("-np", "4", "--spares", "1"), s.own());
        assertEquals(List.of("--mca", "btl", "tcp,self", "-x", "OMP_NUM_THREADS", "--bind-to", "core",
                "--prtemca", "k", "v", "--oversubscribe"), s.mpirun());
        assertEquals(List.of("./a.out", "-x", "1"), s.program(), "everything after the program is the program's");
    }

    @Test
    void anUnknownOptionTakesAValueOnlyWithAnEqualsSign() {
        ArgumentSplitter.Split s = split("--future-option=3", "--future-flag", "prog", "arg");
        assertEquals(List.of("--future-option=3", "--future-flag"), s.mpirun());
        assertEquals(List.of("prog", "arg"), s.program());
    }

    @Test
    void ownOptionsMayUseEqualsAndVerbosityMayCluster() {
        ArgumentSplitter.Split s = split("--recovery=restart", "-vv", "--debug", "--host", "a,b", "prog");
        assertEquals(List.of("--recovery=restart", "-vv", "--debug", "--host", "a,b"), s.own());
        assertEquals(List.of(), s.mpirun());
    }

    @Test
    void doubleDashEndsTheOptions() {
        ArgumentSplitter.Split s = split("-np", "2", "--", "--weird-program-name", "x");
        assertEquals(List.of("--weird-program-name", "x"), s.program());
    }

    @Test
    void aMissingValueAtTheEndIsLeftForPicocliToReport() {
        ArgumentSplitter.Split s = split("--spares");
        assertEquals(List.of("--spares"), s.own());
        assertEquals(List.of(), s.program());
    }
}
