package org.mpirunft.bridge;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The product modules carry nothing for the benchmark's sake (issue 49): a benchmark learns what
 * it measures from the event log or from a {@link RankListener} its program registers, and the
 * kill helper that reads {@code scripts/cluster}'s output lives with the test kit. This greps
 * every product module's {@code src/main/java}, found from the test's working directory (this
 * module's directory, whose parent is the repository), and names each offending line.
 */
class NoMeasurementHooksTest {
    /** The modules whose main code ships: npb-harness's is the benchmark itself. */
    private static final List<String> PRODUCT_MODULES = List.of("common", "blcr-bridge", "membership", "scheduler",
            "runtime-daemon", "mpirun-ext");

    @Test
    void productCodeReadsNoSchedulerStatistics() throws IOException {
        assertNoLineMatches(Pattern.compile("schedstat", Pattern.CASE_INSENSITIVE),
                "reads the kernel's scheduler statistics, which only a benchmark wants; a listener can read them on the thread it is called on");
    }

    /**
     * A static collection built at class load is a record of the whole process, kept whether or
     * not anyone reads it: what a benchmark wants to know goes to a listener instead.
     */
    @Test
    void productCodeKeepsNoStaticJournal() throws IOException {
        assertNoLineMatches(Pattern.compile("\\bstatic\\b[^=(]*=\\s*new\\s+[\\w.]*(Deque|Queue|List|Map|Set)\\b|recentWrites"),
                "keeps a static collection, a journal of the process; report to a RankListener instead");
    }

    /** Lines whose only reader was a benchmark: the program prints what it wants from its listener's events. */
    @Test
    void productCodePrintsNoBenchmarkLines() throws IOException {
        assertNoLineMatches(Pattern.compile("state transfer epoch=|: released; |part write rank=|\\[npb\\]|benchmark reads this"),
                "prints a line for the benchmark to parse; report the event to a RankListener instead");
    }

    @Test
    void productCodeParsesNoClusterScriptOutput() throws IOException {
        assertNoLineMatches(Pattern.compile("SIGKILL at"),
                "parses scripts/cluster's output, which is the test kit's (org.mpirunft.testkit.ClusterKill)");
    }

    private static void assertNoLineMatches(Pattern pattern, String why) throws IOException {
        List<String> found = new ArrayList<>();
        for (Path source : productSources()) {
            List<String> lines = Files.readAllLines(source);
            for (int i = 0; i < lines.size(); i++) {
                if (pattern.matcher(lines.get(i)).find()) {
                    found.add(repository().relativize(source) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertTrue(found.isEmpty(), "product code that " + why + ":\n" + String.join("\n", found));
    }

    private static List<Path> productSources() throws IOException {
        List<Path> sources = new ArrayList<>();
        for (String module : PRODUCT_MODULES) {
            Path main = repository().resolve(module).resolve("src/main/java");
            assertTrue(Files.isDirectory(main), main + " is missing: the test runs from a module directory of the repository");
            try (Stream<Path> files = Files.walk(main)) {
                files.filter(f -> f.toString().endsWith(".java")).sorted().forEach(sources::add);
            }
        }
        assertTrue(sources.size() > 100, "found only " + sources.size() + " product sources");
        return sources;
    }

    private static Path repository() {
        return Path.of("").toAbsolutePath().getParent();
    }
}
