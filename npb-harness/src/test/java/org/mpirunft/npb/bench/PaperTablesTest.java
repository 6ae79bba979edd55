package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        assertTrue(text.contains("### Where ours differ from the paper, and why"), text);
        assertTrue(text.contains("images over ours, per kernel (computed; a range over the node counts): BT 56 to 203."),
                "class C rows only, 9 nodes against the paper's 8, FT's class B left out: " + text);
        assertTrue(text.contains("Our overheads (3.3 to 10.0 %) come from one run"), text);
        assertTrue(text.contains("pause / full restart is 0.250 (computed)."), text);
        assertEquals(-1, PaperTables.column(2));
        assertEquals(1, PaperTables.column(9), "BT and SP's 9 go in the paper's 8");
    }

    @Test
    void theSizesAndThePauseRatioArePlottedBesideThePapers(@TempDir Path dir) throws Exception {
        List<RunResult> runs = new ArrayList<>(kernelAt("bt", "C", 4, 100, 105));
        runs.addAll(kernelAt("lu", "C", 16, 60, 62));
        List<String> written = Plots.write(dir, Summary.of(runs, 86400));
        assertTrue(written.containsAll(List.of(Plots.PAPER_CHECKPOINT_SIZE, Plots.PAPER_RECOVERY)), written.toString());
        for (String name : List.of(Plots.PAPER_CHECKPOINT_SIZE, Plots.PAPER_RECOVERY)) {
            assertTrue(ImageIO.read(dir.resolve(name).toFile()).getWidth() > 100, name);
        }

        List<String> offThePapersCounts = Plots.write(dir, Summary.of(List.of(Runs.as(Runs.checkpointing("baseline", 1, 10, 0, 0),
                "ep", "S", 2)), 86400));
        assertFalse(offThePapersCounts.contains(Plots.PAPER_CHECKPOINT_SIZE), "no run on 4, 8 or 16 nodes: " + offThePapersCounts);
        assertFalse(Files.exists(dir.resolve(Plots.PAPER_RECOVERY)), "an old plot is not left behind");
    }

    @Test
    void nothingWhenNoRunWasOnThePapersNodeCounts() {
        StringBuilder md = new StringBuilder();
        PaperTables.render(md, Summary.of(List.of(Runs.as(Runs.checkpointing("baseline", 1, 10, 0, 0), "ep", "S", 2)), 86400));
        assertEquals("", md.toString());
    }
}
