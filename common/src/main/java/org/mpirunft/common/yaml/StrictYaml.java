package org.mpirunft.common.yaml;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.Json;

/**
 * A YAML config file read strictly, the one way every mpirun-ft config file is read (the
 * daemon's, the scheduler's, mpirun-ft's {@code --config}). An instance is one mapping of the
 * file, the whole file or one of its sections; a reader asks it for its own keys and nothing else:
 *
 * <pre>
 * StrictYaml root = StrictYaml.read(file, ConfigException::new).keys("version", "checkpoint");
 * root.requireVersion(1);
 * StrictYaml checkpoint = root.section("checkpoint", "interval", "mtbf");
 * Duration mtbf = checkpoint.value("mtbf", "24h", Durations::parsePositive);
 * </pre>
 *
 * Strict means: a key the reader does not list is an error, since a misspelt key would otherwise
 * fall back to its default in silence; so is a key given twice, and a value of the wrong shape
 * (a list where one value belongs, a section that is not a mapping). Every error is one line,
 * {@code file: key: problem} with the key's full dotted path ({@code cluster.yaml:
 * checkpoint.mtbf: must be greater than 0, got '0s'}), made into the reader's own exception type
 * by the factory it passes in, so each module keeps its exit codes. Not thread-safe; read once.
 *
 * <p>Jackson's YAML module is an optional dependency of {@code common}: a module that reads YAML
 * declares {@code jackson-dataformat-yaml} itself, and the rank library does not carry it.
 */
public final class StrictYaml {
    /**
     * The JSON policy's mapper for YAML ({@link Json#policy}), reading trees only. Its own: a key
     * given twice is refused, where a message's reader lets the last one win, since a config
     * file is edited by hand and a second {@code interval:} further down would override the first
     * in silence.
     */
    private static final YAMLMapper YAML = Json.policy(YAMLMapper.builder()).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();

    private final String source;
    private final String path;
    private final JsonNode mapping;
    private final Function<String, ? extends RuntimeException> errors;

    private StrictYaml(String source, String path, JsonNode mapping, Function<String, ? extends RuntimeException> errors) {
        this.source = source;
        this.path = path;
        this.mapping = mapping;
        this.errors = errors;
    }

    /** The file's top-level mapping; {@code errors} turns each one-line message into the exception thrown. */
    public static StrictYaml read(Path file, Function<String, ? extends RuntimeException> errors) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw errors.apply(file + ": cannot read it: " + e.getMessage());
        }
        return parse(text, file.toString(), errors);
    }

    /** {@code text}'s top-level mapping; {@code source} names it in errors. An empty text is an empty mapping. */
    public static StrictYaml parse(String text, String source, Function<String, ? extends RuntimeException> errors) {
        JsonNode root;
        try {
            root = YAML.readTree(text);
        } catch (JsonProcessingException e) {
            // SnakeYAML's messages run over several lines: what, then an indented location and
            // snippet, sometimes a second what. The unindented lines, joined, say it on one line.
            String what = String.valueOf(e.getOriginalMessage()).lines()
                    .filter(line -> !line.isBlank() && !Character.isWhitespace(line.charAt(0)))
                    .collect(Collectors.joining(": "));
            throw errors.apply(source + ": not valid YAML: " + what
                    + (e.getLocation() != null ? " (line " + e.getLocation().getLineNr() + ")" : ""));
        }
        if (root == null || root.isMissingNode() || root.isNull()) {
            root = YAML.createObjectNode();
        }
        if (!root.isObject()) {
            throw errors.apply(source + ": must be a mapping of settings (key: value), got '" + text(root) + "'");
        }
        return new StrictYaml(source, "", root, errors);
    }

    /** Refuses any key of this mapping that is not in {@code known}; returns this mapping. */
    public StrictYaml keys(String... known) {
        return keys(Arrays.asList(known));
    }

    public StrictYaml keys(Collection<String> known) {
        for (String name : (Iterable<String>) mapping::fieldNames) {
            if (!known.contains(name)) {
                throw error(name, "unknown key (known here: " + String.join(", ", new TreeSet<>(known)) + ")");
            }
        }
        return this;
    }

    /** The mapping under {@code key}, its keys checked against {@code known}; an absent one is empty. */
    public StrictYaml section(String key, String... known) {
        JsonNode node = node(key, JsonNode::isObject, "must be a mapping").orElseGet(YAML::createObjectNode);
        return new StrictYaml(source, fullKey(key), node, errors).keys(known);
    }

    /** The file's {@code version} must be {@code expected}: a file of another format version is refused, not guessed at. */
    public void requireVersion(int expected) {
        JsonNode node = mapping.get("version");
        if (node == null || !node.isInt() || node.asInt() != expected) {
            throw error("version", "must be " + expected + ", got '" + text(node) + "'");
        }
    }

    /** Whether {@code key} is given a value (a null value counts as absent). */
    public boolean has(String key) {
        JsonNode node = mapping.get(key);
        return node != null && !node.isNull();
    }

    /** The value's text, stripped; empty if the key is absent or null. */
    public Optional<String> optional(String key) {
        return node(key, JsonNode::isValueNode, "must be a single value").map(node -> node.asText().strip());
    }

    /**
     * The value read by {@code parse}, which gets the full key and the text and may throw an
     * {@link IllegalArgumentException} (a {@link BadValueException} included): that becomes this
     * file's one-line error for the key. Empty if the key is absent.
     */
    public <T> Optional<T> optional(String key, BiFunction<String, String, T> parse) {
        return optional(key).map(text -> {
            try {
                return parse.apply(fullKey(key), text);
            } catch (IllegalArgumentException e) {
                throw error(key, e instanceof BadValueException bad ? bad.problem() : e.getMessage());
            }
        });
    }

    /** As {@link #optional(String, BiFunction)}, with {@code absent} read in its place when the key is absent. */
    public <T> T value(String key, String absent, BiFunction<String, String, T> parse) {
        return optional(key, parse).orElseGet(() -> parse.apply(fullKey(key), absent));
    }

    /** As {@link #optional(String, BiFunction)}, and an error if the key is absent or empty. */
    public <T> T required(String key, BiFunction<String, String, T> parse) {
        if (optional(key).orElse("").isEmpty()) {
            throw error(key, "is required");
        }
        return optional(key, parse).orElseThrow();
    }

    public String required(String key) {
        return required(key, (k, text) -> text);
    }

    public String string(String key, String absent) {
        return optional(key).orElse(absent);
    }

    /** A duration in {@link Durations}' grammar. */
    public Duration duration(String key, String absent) {
        return value(key, absent, Durations::parse);
    }

    public Path absolutePath(String key, String absent) {
        return value(key, absent, StrictYaml::absolute);
    }

    /** An integer written as a number (not a quoted string) in {@code min..max}. */
    public int integer(String key, int absent, int min, int max) {
        return node(key, node -> node.isInt() && node.asInt() >= min && node.asInt() <= max,
                "must be an integer in " + min + ".." + max).map(JsonNode::asInt).orElse(absent);
    }

    /** {@code true} or {@code false}, unquoted. */
    public boolean bool(String key, boolean absent) {
        return node(key, JsonNode::isBoolean, "must be true or false").map(JsonNode::asBoolean).orElse(absent);
    }

    /** A list of single values, as text; empty if the key is absent. */
    public List<String> list(String key) {
        JsonNode node = node(key, JsonNode::isArray, "must be a list").orElse(null);
        if (node == null) {
            return List.of();
        }
        List<String> values = new ArrayList<>();
        for (JsonNode entry : node) {
            if (!entry.isValueNode() || entry.isNull()) {
                throw error(key, "must be a list of single values, got '" + text(entry) + "'");
            }
            values.add(entry.asText().strip());
        }
        return values;
    }

    /** This file's one-line error about {@code key} of this mapping, for a reader's own checks. */
    public RuntimeException error(String key, String problem) {
        return errors.apply(source + ": " + fullKey(key) + ": " + problem);
    }

    /** An absolute path, or a {@link BadValueException} naming {@code setting}: a parser for {@link #value}. */
    public static Path absolute(String setting, String text) {
        Path path = Path.of(text);
        if (!path.isAbsolute()) {
            throw new BadValueException(setting, "must be an absolute path, got '" + text + "'");
        }
        return path;
    }

    /** The node under {@code key}, empty if absent or null; an error saying {@code expected} if not of that shape. */
    private Optional<JsonNode> node(String key, Predicate<JsonNode> shape, String expected) {
        JsonNode node = mapping.get(key);
        if (node == null || node.isNull()) {
            return Optional.empty();
        }
        if (!shape.test(node)) {
            throw error(key, expected + ", got '" + text(node) + "'");
        }
        return Optional.of(node);
    }

    private String fullKey(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    private static String text(JsonNode node) {
        return node == null ? "" : node.isValueNode() ? node.asText() : node.toString();
    }
}
