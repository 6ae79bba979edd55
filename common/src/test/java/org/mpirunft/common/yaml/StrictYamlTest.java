package org.mpirunft.common.yaml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.Durations;
import org.mpirunft.common.Names;

class StrictYamlTest {
    private static final String FILE = """
            version: 1
            node:
              name: node1
              slots: 2
              fast: true
              members: [a:1, b]
            timeout: 30s
            """;

    /** The reader's own exception type, as a module would pass it in. */
    static final class ReaderException extends RuntimeException {
        ReaderException(String message) {
            super(message);
        }
    }

    private static StrictYaml parse(String text) {
        return StrictYaml.parse(text, "f.yaml", ReaderException::new);
    }

    @Test
    void readsTypedValuesAndDefaults() {
        StrictYaml root = parse(FILE).keys("version", "node", "timeout", "absent");
        root.requireVersion(1);
        StrictYaml node = root.section("node", "name", "slots", "fast", "members", "role");
        assertEquals("node1", node.required("name", Names::requireName));
        assertEquals(2, node.integer("slots", 1, 0, 10));
        assertTrue(node.bool("fast", false));
        assertEquals(List.of("a:1", "b"), node.list("members"));
        assertEquals("compute", node.string("role", "compute"));
        assertEquals(Duration.ofSeconds(30), root.duration("timeout", "1m"));
        assertEquals(Duration.ofMinutes(1), parse("").duration("timeout", "1m"), "an empty file is an empty mapping");
        assertEquals(Optional.empty(), root.optional("absent", Durations::parse));
        assertEquals(Path.of("/x"), root.absolutePath("absent", "/x"));
        assertTrue(root.section("absent").optional("anything").isEmpty(), "an absent section is empty");
    }

    @Test
    void everyErrorIsOneLineNamingTheFileAndTheFullKey() {
        assertError("f.yaml: node.nmae: unknown key (known here: fast, members, name, role, slots)",
                y -> y.section("node", "name", "slots", "fast", "members", "role"), FILE.replace("name:", "nmae:"));
        assertError("f.yaml: timeout: must be a duration such as 30s, 10m, 1h, 500ms or PT30S, got 'soon'",
                y -> y.duration("timeout", "1s"), "timeout: soon");
        assertError("f.yaml: node.slots: must be an integer in 0..10, got '11'",
                y -> y.section("node", "slots").integer("slots", 1, 0, 10), "node: {slots: 11}");
        assertError("f.yaml: node.slots: must be an integer in 0..10, got '2'",
                y -> y.section("node", "slots").integer("slots", 1, 0, 10), "node: {slots: '2'}");
        assertError("f.yaml: fast: must be true or false, got 'yes please'", y -> y.bool("fast", false), "fast: yes please");
        assertError("f.yaml: node: must be a mapping, got 'node1'", y -> y.section("node", "name"), "node: node1");
        assertError("f.yaml: name: must be a single value, got '[\"a\",\"b\"]'", y -> y.string("name", ""), "name: [a, b]");
        assertError("f.yaml: members: must be a list, got 'a'", y -> y.list("members"), "members: a");
        assertError("f.yaml: node.name: is required", y -> y.section("node", "name").required("name"), "node: {}");
        assertError("f.yaml: name: must be " + Names.RULE + ", got '../etc'",
                y -> y.required("name", Names::requireName), "name: ../etc");
        assertError("f.yaml: dir: must be an absolute path, got 'rel'", y -> y.absolutePath("dir", "/x"), "dir: rel");
        assertError("f.yaml: version: must be 1, got '2'", y -> y.requireVersion(1), "version: 2");
        assertError("f.yaml: version: must be 1, got ''", y -> y.requireVersion(1), "other: 1");
        assertError("f.yaml: peer-port: must differ from port", y -> {
            throw y.error("peer-port", "must differ from port");
        }, "port: 1");
    }

    @Test
    void aFileThatIsNotAMappingOfUniqueKeysIsRefused() {
        assertError("f.yaml: not valid YAML: ", y -> { }, "a: [1\n");
        assertError("f.yaml: not valid YAML: Duplicate field 'a'", y -> { }, "a: 1\na: 2\n");
        assertError("f.yaml: must be a mapping of settings (key: value), got '[1,2]'", y -> { }, "[1, 2]");
    }

    @Test
    void readsAFileAndNamesItWhenItCannot(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("c.yaml"), "timeout: 2s\n");
        assertEquals(Duration.ofSeconds(2), StrictYaml.read(file, ReaderException::new).keys("timeout").duration("timeout", "1s"));
        ReaderException e = assertThrows(ReaderException.class, () -> StrictYaml.read(dir.resolve("none.yaml"), ReaderException::new));
        assertTrue(e.getMessage().startsWith(dir.resolve("none.yaml") + ": cannot read it: "), e.getMessage());
    }

    private static void assertError(String expectedStart, Consumer<StrictYaml> use, String text) {
        ReaderException e = assertThrows(ReaderException.class, () -> use.accept(parse(text)));
        assertTrue(e.getMessage().startsWith(expectedStart), "message was: " + e.getMessage());
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
    }
}
