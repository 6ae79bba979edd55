package org.mpirunft.npb.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.mpirunft.bridge.storage.PartCodec;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.common.BadValueException;

/**
 * One checkpoint storage configuration the bench compares: a label and mpirun-ft's storage
 * options for it ({@code --checkpoint-levels}, {@code --checkpoint-full-every},
 * {@code --checkpoint-compression}), checked with the rank library's own parsers and rendered
 * back in their canonical form.
 *
 * @param label   {@code ""} for the one unnamed configuration of the single-config options;
 *                else 1-12 lower-case letters, digits or '-', part of each run's job name
 * @param options mpirun-ft's options, as passed on its command line; empty for its defaults
 */
public record StorageConfig(String label, List<String> options) {
    /** Short enough that the longest job name the bench makes stays a valid name (63 characters). */
    private static final Pattern LABEL = Pattern.compile("[a-z0-9][a-z0-9-]{0,11}");
    private static final List<String> KNOWN = List.of("--checkpoint-levels", "--checkpoint-full-every", "--checkpoint-compression");

    /** The one configuration of an invocation that gives no {@code --storage}: mpirun-ft's defaults. */
    public static final StorageConfig DEFAULT = new StorageConfig("", List.of());

    public StorageConfig {
        if (!label.isEmpty() && !LABEL.matcher(label).matches()) {
            throw new BenchException.Usage("--storage label must be 1-12 lower-case letters, digits or '-', starting with a "
                    + "letter or digit, got '" + label + "'");
        }
        options = List.copyOf(options);
    }

    /** The label as tables show it; the unnamed configuration is "default". */
    public String display() {
        return label.isEmpty() ? "default" : label;
    }

    /**
     * {@code LABEL=OPTIONS}, OPTIONS being mpirun-ft's storage options separated by spaces,
     * {@code --option value} or {@code --option=value}; empty OPTIONS is mpirun-ft's defaults.
     */
    public static StorageConfig parse(String spec) {
        int equals = spec.indexOf('=');
        if (equals < 0) {
            throw new BenchException.Usage("--storage must be LABEL=OPTIONS (OPTIONS may be empty), got '" + spec + "'");
        }
        String label = spec.substring(0, equals).strip();
        if (label.isEmpty()) {
            throw new BenchException.Usage("--storage needs a label before '=', got '" + spec + "'");
        }
        List<String> words = new ArrayList<>();
        for (String word : spec.substring(equals + 1).strip().split("\\s+")) {
            if (word.isEmpty()) {
                continue;
            }
            int inner = word.indexOf('=');
            if (word.startsWith("--") && inner > 0) {
                words.add(word.substring(0, inner));
                words.add(word.substring(inner + 1));
            } else {
                words.add(word);
            }
        }
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < words.size(); i += 2) {
            String option = words.get(i);
            if (!KNOWN.contains(option)) {
                throw new BenchException.Usage("--storage " + label + ": unknown option '" + option + "'; storage options are "
                        + String.join(", ", KNOWN));
            }
            if (i + 1 >= words.size()) {
                throw new BenchException.Usage("--storage " + label + ": " + option + " needs a value");
            }
            if (values.put(option, words.get(i + 1)) != null) {
                throw new BenchException.Usage("--storage " + label + ": " + option + " given twice");
            }
        }
        return of(label, values.get("--checkpoint-levels"), values.get("--checkpoint-full-every"),
                values.get("--checkpoint-compression"), "--storage " + label + ": ");
    }

    /**
     * A configuration from the three options' texts (null: not given), each checked by the
     * parser mpirun-ft and the ranks use; {@code context} prefixes error messages.
     */
    public static StorageConfig of(String label, String levels, String fullEvery, String compression, String context) {
        List<String> options = new ArrayList<>();
        try {
            if (levels != null) {
                options.addAll(List.of("--checkpoint-levels", StorageLevels.parse("--checkpoint-levels", levels).render()));
            }
            if (fullEvery != null) {
                int every;
                try {
                    every = Integer.parseInt(fullEvery.strip());
                } catch (NumberFormatException e) {
                    every = 0;
                }
                if (every < 1) {
                    throw new BenchException.Usage(context + "--checkpoint-full-every must be an integer >= 1, got " + fullEvery);
                }
                options.addAll(List.of("--checkpoint-full-every", Integer.toString(every)));
            }
            if (compression != null) {
                options.addAll(List.of("--checkpoint-compression", PartCodec.parse("--checkpoint-compression", compression).setting()));
            }
        } catch (BadValueException e) {
            throw new BenchException.Usage(context + e.getMessage());
        }
        return new StorageConfig(label, options);
    }

    /** The configurations of {@code --storage} options, in order; a label given twice is an error. */
    public static List<StorageConfig> parseAll(List<String> specs) {
        List<StorageConfig> configs = new ArrayList<>();
        for (String spec : specs) {
            StorageConfig config = parse(spec);
            if (configs.stream().anyMatch(c -> c.label().equals(config.label()))) {
                throw new BenchException.Usage("--storage label '" + config.label() + "' given twice");
            }
            configs.add(config);
        }
        return List.copyOf(configs);
    }
}
