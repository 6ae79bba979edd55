package org.mpirunft.npb;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** {@code npb KERNEL CLASS --iterations RANKS}: what the demo places its checkpoints and its kill by, without MPI. */
class NpbTest {
    private record Run(int status, String out, String err) {
    }

    private static Run npb(String... args) {
        PrintStream savedOut = System.out;
        PrintStream savedErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int status = new CommandLine(new Npb()).execute(args);
            return new Run(status, out.toString(StandardCharsets.UTF_8).strip(), err.toString(StandardCharsets.UTF_8).strip());
        } finally {
            System.setOut(savedOut);
            System.setErr(savedErr);
        }
    }

    @Test
    void printsTheKernelsIterationsForTheClassAndRanksTimesTheRepeats() {
        assertEquals(new Run(0, "15", ""), npb("cg", "A", "--iterations", "4"), "CG class A: NPB's 15 iterations");
        assertEquals(new Run(0, "4", ""), npb("mg", "a", "--iterations", "4"), "MG class A: 4");
        assertEquals(new Run(0, "30", ""), npb("is", "A", "--iterations", "4", "--repeat", "3"), "IS class A 3 times: 3 x 10");
        assertEquals(String.valueOf(Kernels.byName("ep").iterations(NpbClass.parse("B"), 4)), npb("ep", "B", "--iterations", "4").out());
    }

    @Test
    void refusesRankCountsTheKernelCannotRunOnInOneLine() {
        Run zero = npb("cg", "A", "--iterations", "0");
        assertEquals(Npb.USAGE, zero.status());
        assertEquals("npb: --iterations: RANKS must be 1 or more, got 0", zero.err());
        Run odd = npb("cg", "A", "--iterations", "3");
        assertEquals(Npb.USAGE, odd.status(), odd.toString());
        assertTrue(odd.err().startsWith("npb: CG class A cannot run on 3 ranks: ") && odd.err().lines().count() == 1, odd.err());
    }
}
