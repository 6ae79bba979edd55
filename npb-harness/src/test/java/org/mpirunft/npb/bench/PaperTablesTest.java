package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Our rows beside the paper's, per kernel, at 4, 8 (9 for BT and SP) and 16 nodes. */
class PaperTablesTest {
    private static List<RunResult> kernelAt(String kernel, String cls, int nodes, double baselineS, double oneCheckpointS) {
        return List.of(Runs.as(Runs.checkpointing("baseline", 1, baselineS, 0, 0), kernel, cls, nodes),
                Runs.as(Runs.checkpointing("one-checkpoint", 1, oneCheckpointS, 1, 5), kernel, cls, nodes),
                Runs.as(Runs.pause(1, 3000), kernel, cls, nodes),
                Runs.as(Runs.fullRestart(1, 12000, 4000), kernel, cls, nodes));
    }

    @Test
    void eachKernelHasOursAndThePapersFiguresAtFourEightAndSixteenNodes() {
        List<RunResult> runs = new ArrayList<>();
        runs.addAll(kernelAt("bt", "C", 4, 100, 105));
        runs.addAll(kernelAt("bt", "C", 9, 60, 62));
        runs.addAll(kernelAt("bt", "B", 16, 20, 21));
        runs.addAll(kernelAt("bt", "C", 16, 40, 44));
        runs.addAll(kernelAt("ft", "B", 16, 30, 33));
        StringBuilder md = new StringBuilder();
        PaperTables.render(md, Summary.of(runs, 86400));
        String text = md.toString();

        assertTrue(text.contains("| BT | 2.00 | 406.90 | 2.00 (9 nodes) | 186.68 | 2.00 | 111.12 |"), text);
        assertTrue(text.contains("| FT | not run | 1841.02 | not run | 920.82 | 2.00 (class B) | 460.73 |"),
                "a stand-in class is named; a count that did not run says so: " + text);
        assertTrue(text.contains("| BT | 5.0 | 0.05 | 3.3 (9 nodes) | 0.05 (9 nodes) | 10.0 | 0.05 |"),
                "class C, not the B that also ran at 16, and the overhead of one checkpoint: " + text);
        assertTrue(text.contains("| BT | 3.00 | 12.00 | 0.250 | 3.00 (9 nodes) | 12.00 (9 nodes) | 0.250 (9 nodes) |"), text);
        assertEquals(-1, PaperTables.column(2));
        assertEquals(1, PaperTables.column(9), "BT and SP's 9 go in the paper's 8");
    }

    @Test
    void nothingWhenNoRunWasOnThePapersNodeCounts() {
        StringBuilder md = new StringBuilder();
        PaperTables.render(md, Summary.of(List.of(Runs.as(Runs.checkpointing("baseline", 1, 10, 0, 0), "ep", "S", 2)), 86400));
        assertEquals("", md.toString());
    }
}
