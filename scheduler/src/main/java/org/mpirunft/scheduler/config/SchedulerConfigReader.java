package org.mpirunft.scheduler.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.mpirunft.scheduler.policy.LeastLoadedSpare;
import org.mpirunft.scheduler.policy.NoSpareAction;
import org.mpirunft.scheduler.policy.ReplacementPolicies;

/**
 * Reads and validates the scheduler's part of the cluster config file:
 *
 * <pre>
 * version: 1
 * checkpoint:
 *   interval: auto          # or a duration: 30s, 10m, 1h, PT10M
 *   mtbf: 24h
 *   cost: 1m                # assumed until measured
 * storage:
 *   shared: /shared/mpirun-ft
 * policies:
 *   replacement: least-loaded-spare
 *   when-no-spare: stop-job # or use-compute
 * </pre>
 *
 * Every error names the key: {@code cluster.yaml: checkpoint.mtbf: must be a duration such as
 * 30s, 10m or 24h, got 'often'}. Unknown keys are errors too, since a misspelt key would
 * otherwise silently fall back to a default.
 */
public final class SchedulerConfigReader {
    private static final YAMLMapper YAML = new YAMLMapper();
    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");
    private static final Map<String, Set<String>> KEYS = Map.of(
            "", Set.of("version", "checkpoint", "storage", "policies"),
            "checkpoint", Set.of("interval", "mtbf", "cost"),
            "storage", Set.of("shared"),
            "policies", Set.of("replacement", "when-no-spare"));

    private final String source;

    private SchedulerConfigReader(String source) {
        this.source = source;
    }

    public static SchedulerConfig read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read: " + e.getMessage(), e);
        }
        return parse(text, file.toString());
    }

    public static SchedulerConfig parse(String yaml, String source) {
        return new SchedulerConfigReader(source).parse(yaml);
    }

    private SchedulerConfig parse(String yaml) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JsonProcessingException e) {
            throw new ConfigException(source + ": not valid YAML: " + e.getOriginalMessage()
                    + (e.getLocation() != null ? " (line " + e.getLocation().getLineNr() + ")" : ""), e);
        }
        if (root == null || !root.isObject()) {
            throw new ConfigException(source + ": must be a YAML mapping with a 'version' key");
        }
        checkKeys(root, "");
        int version = root.path("version").asInt(-1);
        if (!root.path("version").isInt() || version != SchedulerConfig.VERSION) {
            throw error("version", "must be " + SchedulerConfig.VERSION + ", got '" + text(root.get("version")) + "'");
        }
        JsonNode checkpoint = section(root, "checkpoint");
        String intervalText = string(checkpoint, "checkpoint.interval", "auto");
        Optional<Duration> interval = intervalText.equals("auto") ? Optional.empty()
                : Optional.of(positive("checkpoint.interval", duration("checkpoint.interval", intervalText, " or 'auto'")));
        Duration mtbf = positive("checkpoint.mtbf", duration("checkpoint.mtbf", string(checkpoint, "checkpoint.mtbf", "24h"), ""));
        Duration cost = positive("checkpoint.cost", duration("checkpoint.cost", string(checkpoint, "checkpoint.cost", "1m"), ""));

        JsonNode storage = section(root, "storage");
        Path shared = absolute("storage.shared", string(storage, "storage.shared", "/shared/mpirun-ft"));

        JsonNode policies = section(root, "policies");
        String replacement = string(policies, "policies.replacement", LeastLoadedSpare.NAME);
        try {
            ReplacementPolicies.byName(replacement); // found now, not at the first failure
        } catch (IllegalArgumentException e) {
            throw error("policies.replacement", e.getMessage());
        }
        NoSpareAction whenNoSpare;
        try {
            whenNoSpare = NoSpareAction.fromConfig(string(policies, "policies.when-no-spare", "stop-job"));
        } catch (IllegalArgumentException e) {
            throw error("policies.when-no-spare", e.getMessage());
        }
        return new SchedulerConfig(interval, mtbf, cost, shared, replacement, whenNoSpare);
    }

    private void checkKeys(JsonNode node, String path) {
        Set<String> known = KEYS.get(path);
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            String key = path.isEmpty() ? name : path + "." + name;
            if (!known.contains(name)) {
                throw error(key, "unknown key (known here: " + String.join(", ", known.stream().sorted().toList()) + ")");
            }
            if (KEYS.containsKey(key)) {
                JsonNode child = node.get(name);
                if (!child.isObject()) {
                    throw error(key, "must be a mapping, got '" + text(child) + "'");
                }
                checkKeys(child, key);
            }
        }
    }

    private static JsonNode section(JsonNode root, String name) {
        JsonNode node = root.get(name);
        return node == null || node.isNull() ? YAML.createObjectNode() : node;
    }

    private String string(JsonNode section, String key, String absent) {
        JsonNode node = section.get(key.substring(key.lastIndexOf('.') + 1));
        if (node == null || node.isNull()) {
            return absent;
        }
        if (!node.isValueNode() || node.isBoolean()) {
            throw error(key, "must be a single value, got '" + text(node) + "'");
        }
        return node.asText().strip();
    }

    private Duration duration(String key, String value, String alternatives) {
        Matcher matcher = DURATION.matcher(value.toLowerCase(Locale.ROOT));
        if (matcher.matches()) {
            long amount = Long.parseLong(matcher.group(1));
            return switch (matcher.group(2)) {
                case "ms" -> Duration.ofMillis(amount);
                case "s" -> Duration.ofSeconds(amount);
                case "m" -> Duration.ofMinutes(amount);
                case "h" -> Duration.ofHours(amount);
                default -> Duration.ofDays(amount);
            };
        }
        try {
            return Duration.parse(value.toUpperCase(Locale.ROOT));
        } catch (DateTimeParseException e) {
            throw error(key, "must be a duration such as 30s, 10m or 24h" + alternatives + ", got '" + value + "'");
        }
    }

    private Duration positive(String key, Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            throw error(key, "must be > 0, got " + duration);
        }
        return duration;
    }

    private Path absolute(String key, String value) {
        Path path = Path.of(value);
        if (!path.isAbsolute()) {
            throw error(key, "must be an absolute path, got '" + value + "'");
        }
        return path;
    }

    private ConfigException error(String key, String problem) {
        return new ConfigException(source + ": " + key + ": " + problem);
    }

    private static String text(JsonNode node) {
        return node == null ? "" : node.isValueNode() ? node.asText() : node.toString();
    }
}
