package org.mpirunft.npb.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SimulateCommandTest {
    @TempDir
    Path dir;

    private record Result(int status, String out, String err) {
    }

    private Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = SimulateCommand.execute(args, new PrintStream(out, true), new PrintStream(err, true));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "--mtbf-years 0|--mtbf-years must be > 0, got 0.0",
            "--mtbf-years -5|--mtbf-years must be > 0, got -5.0",
            "--nodes 0|--nodes must be >= 1, got 0",
            "--replications 1|--replications must be >= 2, got 1",
            "--interval soon|--interval: must be a duration such as 30s, 10m, 1h, 500ms or PT30S, got 'soon' (or daly)",
            "--interval 0s|--interval: must be greater than 0, got '0s'",
            "--kernels ep,xx|kernel 'xx' is not in",
            "--headline-mtbf-years 0|--headline-mtbf-years must be > 0, got 0.0",
            "--frobnicate|Unknown option: '--frobnicate'",
            "--nodes many|Invalid value for option '--nodes'"})
    void badInputIsOneLineNamingItAndExitStatus2(String args, String message) throws IOException {
        List<String> argv = new ArrayList<>(List.of(args.split(" ")));
        argv.addAll(List.of("--costs", SimulationCostsTest.fixture(dir).toString(), "--out", dir.resolve("out").toString()));
        Result result = run(argv.toArray(String[]::new));
        assertEquals(SimulateCommand.USAGE, result.status(), result.err());
        assertTrue(result.err().startsWith("npb-simulate: ") && result.err().contains(message), result.err());
        assertEquals(1, result.err().strip().lines().count(), "one line, no stack trace: " + result.err());
        assertFalse(Files.exists(dir.resolve("out")), "nothing written");
    }

    @Test
    void aMissingCostsFileIsNamed() {
        Result result = run("--costs", dir.resolve("summary.csv").toString(), "--out", dir.resolve("out").toString());
        assertEquals(SimulateCommand.USAGE, result.status());
        assertEquals("npb-simulate: costs file not found: " + dir.resolve("summary.csv"), result.err().strip());
    }

    @Test
    void printsTheHeadlineAndWritesTablesCsvAndPlots() throws IOException {
        Path out = dir.resolve("out");
        Result result = run("--costs", SimulationCostsTest.fixture(dir).toString(), "--nodes", "1000,100000", "--mtbf-years", "1,25",
                "--replications", "4", "--work-mtbfs", "50", "--out", out.toString());
        assertEquals(SimulateCommand.OK, result.status(), result.err());
        // The headline's 10,000 nodes and 5 years are simulated although the grid lacks them: 2 kernels x 3 modes x 3 x 3.
        List<String> csv = Files.readAllLines(out.resolve("results.csv"));
        assertEquals(1 + 2 * 3 * 3 * 3, csv.size());
        assertTrue(csv.getFirst().contains("efficiency_simulated") && csv.getFirst().contains("efficiency_daly_computed"), csv.getFirst());
        String readme = Files.readString(out.resolve("README.md"));
        assertTrue(readme.contains("## Headline: 10,000 nodes, 5-year per-node MTBF"), readme);
        assertTrue(readme.contains("| MG B | full restart | 0.996 | 9.477 |"), readme);
        assertTrue(readme.contains("npb-harness/bin/npb-simulate --costs "), "names its command");
        assertTrue(Files.size(out.resolve(SimulationPlots.AGAINST_NODES)) > 0 && Files.size(out.resolve(SimulationPlots.AGAINST_MTBF)) > 0);
        assertTrue(result.out().contains("npb-simulate: 10,000 nodes, 5-year per-node MTBF, efficiency simulated:"), result.out());
        assertTrue(result.out().lines().anyMatch(l -> l.matches("  MG B: pause \\d+\\.\\d+%, restart \\d+\\.\\d+%, full restart \\d+\\.\\d+%")),
                result.out());
    }
}
