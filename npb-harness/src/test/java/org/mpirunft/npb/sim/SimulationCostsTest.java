package org.mpirunft.npb.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulationCostsTest {
    static final String HEADER = "kernel,class,nodes,stall_ms,checkpoint_cost_s,checkpoint_cost_from,pause_recovery_ms,restart_recovery_ms,"
            + "full_restart_recovery_ms";

    @TempDir
    Path dir;

    /** A summary.csv of two kernels in the bench's format: EP's cost rounded to 0.000 from its stall, MG's from the periodic run. */
    static Path fixture(Path dir) throws IOException {
        Path csv = dir.resolve("summary.csv");
        Files.writeString(csv, HEADER + "\n"
                + "ep,B,4,0.144,0.000,stall,907.590,4349.870,9008.388\n"
                + "mg,B,4,14.475,0.996,periodic,1428.959,5911.482,9476.857\n");
        return csv;
    }

    @Test
    void readsEachKernelsCostsInSecondsAndTheStallWhereTheCostRoundsToZero() throws IOException {
        SimulationCosts costs = SimulationCosts.read(fixture(dir));
        assertEquals(List.of("ep", "mg"), costs.kernels().stream().map(SimulationCosts.Kernel::kernel).toList());
        SimulationCosts.Kernel ep = costs.kernel("EP");
        assertEquals(0.000144, ep.checkpointS(), 1e-12, "stall_ms, unrounded");
        assertEquals(0.90759, ep.recoveryS(RecoveryMode.PAUSE), 1e-9);
        SimulationCosts.Kernel mg = costs.kernel("mg");
        assertEquals(0.996, mg.checkpointS(), 1e-12);
        assertEquals(9.476857, mg.recoveryS(RecoveryMode.FULL_RESTART), 1e-9);
        assertEquals(4, mg.measuredNodes());
        assertEquals("MG B", mg.label());
        assertNull(costs.producedBy(), "no results.json beside it");
    }

    @Test
    void namesTheCommandFromTheResultsJsonBesideIt() throws IOException {
        Path csv = fixture(dir);
        Files.writeString(dir.resolve("results.json"), "{\"version\":1,\"command\":\"npb-harness/bin/npb-bench --classes B\"}");
        assertEquals("npb-harness/bin/npb-bench --classes B", SimulationCosts.read(csv).producedBy());
    }

    @Test
    void badFilesAreOneLineNamingWhatIsWrong() throws IOException {
        SimulationInputException missing = assertThrows(SimulationInputException.class, () -> SimulationCosts.read(dir.resolve("none.csv")));
        assertEquals("costs file not found: " + dir.resolve("none.csv"), missing.getMessage());

        Path noColumn = dir.resolve("no-column.csv");
        Files.writeString(noColumn, HEADER.replace(",restart_recovery_ms", "") + "\nep,B,4,0.1,0.2,periodic,900,9000\n");
        assertEquals(noColumn + ": no column 'restart_recovery_ms' in its header",
                assertThrows(SimulationInputException.class, () -> SimulationCosts.read(noColumn)).getMessage());

        Path badNumber = dir.resolve("bad-number.csv");
        Files.writeString(badNumber, HEADER + "\nep,B,4,0.1,fast,periodic,900,4000,9000\n");
        assertEquals(badNumber + " line 2: checkpoint_cost_s must be a number, got 'fast'",
                assertThrows(SimulationInputException.class, () -> SimulationCosts.read(badNumber)).getMessage());

        SimulationInputException unknown = assertThrows(SimulationInputException.class, () -> SimulationCosts.read(fixture(dir)).kernel("xx"));
        assertTrue(unknown.getMessage().startsWith("kernel 'xx' is not in ") && unknown.getMessage().endsWith("(it has ep, mg)"),
                unknown.getMessage());
    }

    @Test
    void aRowLackingAMeasureIsLeftOutAndNamed() throws IOException {
        Path csv = dir.resolve("partial.csv");
        Files.writeString(csv, HEADER + "\nep,B,4,0.1,0.2,periodic,900,,9000\n\"mg\",B,4,1,1.0,\"periodic\",1400,5900,9400\n");
        SimulationCosts costs = SimulationCosts.read(csv);
        assertEquals(List.of("mg"), costs.kernels().stream().map(SimulationCosts.Kernel::kernel).toList(), "quoted cells read too");
        assertEquals(List.of("ep B: no restart_recovery_ms"), costs.leftOut());
    }

    @Test
    void theCommittedBenchHasEveryKernelsCosts() {
        // The file the committed simulation results come from (the module's directory is the tests' working directory).
        SimulationCosts costs = SimulationCosts.read(Path.of("results/bench-B-warm/summary.csv"));
        assertEquals(List.of("ep", "cg", "is", "mg", "ft"), costs.kernels().stream().map(SimulationCosts.Kernel::kernel).toList());
        assertTrue(costs.kernels().stream().allMatch(k -> k.checkpointS() > 0 && k.recoveryS(RecoveryMode.PAUSE) < k.recoveryS(RecoveryMode.FULL_RESTART)));
        assertTrue(costs.producedBy().startsWith("npb-harness/bin/npb-bench "), costs.producedBy());
    }
}
