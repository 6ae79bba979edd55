package org.mpirunft.launcher.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.mpirunft.common.yaml.StrictYaml;
import org.mpirunft.launcher.ConfigFileException;

/**
 * mpirun-ft's YAML config files: the site's ({@link CliContext#siteConfig}, written by the
 * deployment: daemon socket, launch agent, MPI prefix, storage) and the user's
 * ({@code --config FILE}), each a flat map whose keys are the long options without their
 * dashes, such as
 * <pre>
 * spares: 1
 * checkpoint-interval: 10m
 * recovery: pause
 * checkpoint-dir: /shared/mpirun-ft
 * </pre>
 * Options on the command line win over the user's file, which wins over the site's. A file is read by {@link StrictYaml}: unknown
 * keys and values that are not single values are refused, and every error, a bad value included,
 * is one line naming the file and the key.
 */
final class ConfigFile {
    /** The keys a file may set. */
    static final Set<String> KEYS = Set.of("spares", "warm-spares", "aot-cache", "checkpoint-interval", "checkpoint-levels", "checkpoint-full-every", "checkpoint-xor-set", "checkpoint-compression", "recovery", "checkpoint-dir",
            "local-checkpoint-dir", "socket", "event-log", "agent", "mpirun", "exit-timeout",
            "decision-timeout", "stop-grace", "max-restarts", "job-interface");

    /** The files, the one that wins first. */
    private final List<StrictYaml> files;

    private ConfigFile(List<StrictYaml> files) {
        this.files = List.copyOf(files);
    }

    /** The user's file over the site's; either may be absent. */
    static ConfigFile layered(Optional<Path> site, Optional<Path> user) {
        List<StrictYaml> files = new ArrayList<>();
        user.ifPresent(file -> files.add(parse(file)));
        site.ifPresent(file -> files.add(parse(file)));
        return new ConfigFile(files);
    }

    private static StrictYaml parse(Path file) {
        StrictYaml yaml = StrictYaml.read(file, ConfigFileException::new).keys(KEYS);
        // Every value's shape is checked now, also of a key an option or the other file will override.
        KEYS.forEach(yaml::optional);
        return yaml;
    }

    /**
     * The key's value from the first file that sets it, read by {@code parse}; a value {@code parse}
     * refuses (with a {@code BadSettingException} naming the option) is reported under that file's key instead.
     */
    <T> Optional<T> value(String key, Function<String, T> parse) {
        for (StrictYaml yaml : files) {
            Optional<T> value = yaml.optional(key, (fullKey, text) -> parse.apply(text));
            if (value.isPresent()) {
                return value;
            }
        }
        return Optional.empty();
    }
}
