package org.mpirunft.launcher.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.mpirunft.launcher.ConfigFileException;

/**
 * mpirun-ft's YAML config file ({@code --config FILE}): a flat map whose keys are the long
 * options without their dashes, such as
 * <pre>
 * spares: 1
 * checkpoint-interval: 10m
 * recovery: pause
 * checkpoint-dir: /shared/mpirun-ft
 * rank-control-root: /run/mpirun-ft/jobs
 * </pre>
 * Options on the command line win over the file. Unknown keys are refused, naming the key.
 */
final class ConfigFile {
    /** The keys a file may set. */
    static final Set<String> KEYS = Set.of("spares", "checkpoint-interval", "recovery", "checkpoint-dir",
            "local-checkpoint-dir", "rank-control-root", "socket", "event-log", "agent", "mpirun", "exit-timeout",
            "stop-grace", "max-restarts");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final Path file;
    private final Map<String, String> values;

    private ConfigFile(Path file, Map<String, String> values) {
        this.file = file;
        this.values = values;
    }

    static ConfigFile none() {
        return new ConfigFile(null, Map.of());
    }

    static ConfigFile read(Path file) {
        JsonNode root;
        try {
            root = YAML.readTree(Files.readString(file));
        } catch (JsonProcessingException e) {
            throw new ConfigFileException(file, "not valid YAML: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new ConfigFileException(file, "cannot read it: " + e.getMessage());
        }
        Map<String, String> values = new LinkedHashMap<>();
        if (root == null || root.isMissingNode() || root.isNull()) {
            return new ConfigFile(file, values);
        }
        if (!root.isObject()) {
            throw new ConfigFileException(file, "must be a map of settings (key: value)");
        }
        for (Map.Entry<String, JsonNode> field : root.properties()) {
            if (!KEYS.contains(field.getKey())) {
                throw new ConfigFileException(file, "unknown key '" + field.getKey() + "' (known: " + String.join(", ", new TreeSet<>(KEYS)) + ")");
            }
            if (!field.getValue().isValueNode() || field.getValue().isNull()) {
                throw new ConfigFileException(file, field.getKey() + " must be a single value");
            }
            values.put(field.getKey(), field.getValue().asText());
        }
        return new ConfigFile(file, values);
    }

    Optional<String> get(String key) {
        return Optional.ofNullable(values.get(key));
    }

    /** The file, for messages; null for {@link #none()}. */
    Path file() {
        return file;
    }
}
