package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportTest {
    @TempDir
    Path dir;

    private BenchResults results() {
        List<RunResult> runs = List.of(Runs.checkpointing("baseline", 1, 10.0, 0, 0), Runs.checkpointing("periodic", 1, 11.4, 7, 0.2),
                Runs.pause(1, 4000), Runs.restart(1, 9000), Runs.failed("one-checkpoint"));
        return new BenchResults(BenchResults.VERSION, "npb-harness/bin/npb-bench --kernels ep --classes S", "2026-11-21T16:00:00Z",
                "2026-11-21T16:05:00Z", Map.of("repeats", 1, "spares", 1, "cores", 2, "mtbfSeconds", 86400, "paceMs", 40),
                runs, Summary.of(runs, 86400));
    }

    @Test
    void plotsArePngImages() throws Exception {
        List<String> written = Plots.write(dir, results().summary());
        assertEquals(List.of(Plots.OVERHEAD, Plots.RECOVERY, Plots.RECOVERY_SPLIT, Plots.CHECKPOINT_SIZE), written);
        for (String name : written) {
            assertTrue(ImageIO.read(dir.resolve(name).toFile()).getWidth() > 100, name);
        }
    }

    @Test
    void theReadmeStatesTheCommandTheRatioTheOverheadAndWhatMissesTheTarget() throws Exception {
        Path bench = dir.resolve("bench-1");
        BenchResults results = results();
        String md = ReadmeReport.render(results, bench, dir.resolve("README.md"), List.of(Plots.RECOVERY));
        assertTrue(md.contains("npb-harness/bin/npb-bench --kernels ep --classes S"), "the exact command");
        assertTrue(md.contains("pause/restart = 0.444 (4000 ms / 9000 ms)"), md);
        assertTrue(md.contains("misses the 0.2 target by 0.244"), md);
        assertTrue(md.contains("pause would have to take <= 1800 ms, 2200 ms less"), md);
        assertTrue(md.contains("replacement start 2500 ms (63%)"), "the largest part first: " + md);
        assertTrue(md.contains("within the 2% target"), md);
        assertTrue(md.contains("1.056"), "the paper's ratio beside ours");
        assertTrue(md.contains("250.88 / 127.17 / 63.50") || md.contains("1.33 / 1.33 / 1.33"), "the paper's Table 1");
        assertTrue(md.contains("![recovery](bench-1/recovery.png)"), md);
        assertTrue(md.contains("`bad`: NPB verification failed"), "runs that do not count are listed");
    }
}
