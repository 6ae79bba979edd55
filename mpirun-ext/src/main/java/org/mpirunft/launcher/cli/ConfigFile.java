package org.mpirunft.launcher.cli;

import java.nio.file.Path;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.mpirunft.common.yaml.StrictYaml;
import org.mpirunft.launcher.ConfigFileException;

/**
 * mpirun-ft's YAML config file ({@code --config FILE}): a flat map whose keys are the long
 * options without their dashes, such as
 * <pre>
 * spares: 1
 * checkpoint-interval: 10m
 * recovery: pause
 * checkpoint-dir: /shared/mpirun-ft
 * </pre>
 * Options on the command line win over the file. The file is read by {@link StrictYaml}: unknown
 * keys and values that are not single values are refused, and every error, a bad value included,
 * is one line naming the file and the key.
 */
final class ConfigFile {
    /** The keys a file may set. */
    static final Set<String> KEYS = Set.of("spares", "warm-spares", "aot-cache", "checkpoint-interval", "checkpoint-levels", "checkpoint-full-every", "checkpoint-xor-set", "checkpoint-compression", "recovery", "checkpoint-dir",
            "local-checkpoint-dir", "socket", "event-log", "agent", "mpirun", "exit-timeout",
            "stop-grace", "max-restarts");

    private final StrictYaml yaml;

    private ConfigFile(StrictYaml yaml) {
        this.yaml = yaml;
    }

    static ConfigFile none() {
        return new ConfigFile(null);
    }

    static ConfigFile read(Path file) {
        StrictYaml yaml = StrictYaml.read(file, ConfigFileException::new).keys(KEYS);
        // Every value's shape is checked now, also of a key an option will override.
        KEYS.forEach(yaml::optional);
        return new ConfigFile(yaml);
    }

    /**
     * The key's value read by {@code parse}; a value {@code parse} refuses (with a
     * {@code BadSettingException} naming the option) is reported under the file's key instead.
     */
    <T> Optional<T> value(String key, Function<String, T> parse) {
        return yaml == null ? Optional.empty() : yaml.optional(key, (fullKey, text) -> parse.apply(text));
    }
}
