package org.mpirunft.bridge;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * How a rank checkpoints and recovers. Built once, validated at build time, immutable.
 *
 * <p>{@link #fromEnvironment()} reads {@code mpirunft.*} system properties first, then
 * {@code MPIRUN_FT_*} environment variables ({@link #environmentName}), so a replacement rank
 * can be handed the same settings on its command line.
 */
public final class FtConfig {
    /** Keys, as system properties; environment variables are the upper-cased form. */
    public static final String JOB = "mpirunft.job";
    public static final String LOCAL_DIR = "mpirunft.local.dir";
    public static final String SHARED_DIR = "mpirunft.shared.dir";
    public static final String CHECKPOINT_EVERY = "mpirunft.checkpoint.every";
    public static final String CHECKPOINT_INTERVAL = "mpirunft.checkpoint.interval";
    public static final String CONTROL_DIR = "mpirunft.control.dir";
    public static final String SPARES = "mpirunft.spares";
    public static final String FINALIZE_TIMEOUT = "mpirunft.finalize.timeout";
    public static final String KEEP_IN_MEMORY = "mpirunft.checkpoint.memory";

    private final Optional<String> job;
    private final Path localDirectory;
    private final Path sharedDirectory;
    private final int checkpointEveryIterations;
    private final Optional<Duration> checkpointInterval;
    private final Optional<Path> controlDirectory;
    private final List<String> spares;
    private final Duration finalizeTimeout;
    private final boolean keepInMemory;

    private FtConfig(Builder builder) {
        this.job = Optional.ofNullable(builder.job);
        this.localDirectory = builder.localDirectory;
        this.sharedDirectory = builder.sharedDirectory;
        this.checkpointEveryIterations = builder.checkpointEveryIterations;
        this.checkpointInterval = Optional.ofNullable(builder.checkpointInterval);
        this.controlDirectory = Optional.ofNullable(builder.controlDirectory);
        this.spares = List.copyOf(builder.spares);
        this.finalizeTimeout = builder.finalizeTimeout;
        this.keepInMemory = builder.keepInMemory;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Settings from {@code mpirunft.*} system properties and {@code MPIRUN_FT_*} variables. */
    public static FtConfig fromEnvironment() {
        return fromLookup(key -> {
            String value = System.getProperty(key);
            return value != null ? value : System.getenv(environmentName(key));
        });
    }

    /** {@code mpirunft.checkpoint.every} is {@code MPIRUN_FT_CHECKPOINT_EVERY} in the environment. */
    public static String environmentName(String key) {
        return "MPIRUN_FT_" + key.substring("mpirunft.".length()).toUpperCase(java.util.Locale.ROOT).replace('.', '_');
    }

    static FtConfig fromLookup(Function<String, String> lookup) {
        Builder builder = builder();
        value(lookup, JOB).ifPresent(builder::job);
        value(lookup, LOCAL_DIR).ifPresent(v -> builder.localDirectory(Paths.get(v)));
        value(lookup, SHARED_DIR).ifPresent(v -> builder.sharedDirectory(Paths.get(v)));
        value(lookup, CHECKPOINT_EVERY).ifPresent(v -> builder.checkpointEveryIterations(parseInt(CHECKPOINT_EVERY, v)));
        value(lookup, CHECKPOINT_INTERVAL).ifPresent(v -> builder.checkpointInterval(parseDuration(CHECKPOINT_INTERVAL, v)));
        value(lookup, CONTROL_DIR).ifPresent(v -> builder.controlDirectory(Paths.get(v)));
        value(lookup, SPARES).ifPresent(v -> builder.spares(List.of(v.split(","))));
        value(lookup, FINALIZE_TIMEOUT).ifPresent(v -> builder.finalizeTimeout(parseDuration(FINALIZE_TIMEOUT, v)));
        value(lookup, KEEP_IN_MEMORY).ifPresent(v -> builder.keepInMemory(parseBoolean(KEEP_IN_MEMORY, v)));
        return builder.build();
    }

    /** These settings as system properties, for a replacement rank's command line. */
    public Map<String, String> toProperties(String resolvedJob) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(JOB, resolvedJob);
        properties.put(LOCAL_DIR, localDirectory.toString());
        properties.put(SHARED_DIR, sharedDirectory.toString());
        properties.put(CHECKPOINT_EVERY, Integer.toString(checkpointEveryIterations));
        checkpointInterval.ifPresent(d -> properties.put(CHECKPOINT_INTERVAL, d.toString()));
        controlDirectory.ifPresent(d -> properties.put(CONTROL_DIR, d.toString()));
        if (!spares.isEmpty()) {
            properties.put(SPARES, String.join(",", spares));
        }
        properties.put(FINALIZE_TIMEOUT, finalizeTimeout.toString());
        properties.put(KEEP_IN_MEMORY, Boolean.toString(keepInMemory));
        return properties;
    }

    /** The job's id, if configured; otherwise rank 0's MPI job name is used. */
    public Optional<String> job() {
        return job;
    }

    public Path localDirectory() {
        return localDirectory;
    }

    public Path sharedDirectory() {
        return sharedDirectory;
    }

    /** Checkpoint at every N-th safe point; 0 means not by count. */
    public int checkpointEveryIterations() {
        return checkpointEveryIterations;
    }

    public Optional<Duration> checkpointInterval() {
        return checkpointInterval;
    }

    /** Where checkpoint requests and pause orders arrive until the node daemon delivers them. */
    public Optional<Path> controlDirectory() {
        return controlDirectory;
    }

    /** Hosts for replacement ranks, in the order they are used, when no daemon places them. */
    public List<String> spares() {
        return spares;
    }

    public Duration finalizeTimeout() {
        return finalizeTimeout;
    }

    /** Whether survivors keep the committed epoch in memory to roll back without reading disk. */
    public boolean keepInMemory() {
        return keepInMemory;
    }

    private static Optional<String> value(Function<String, String> lookup, String key) {
        String value = lookup.apply(key);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }

    private static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a whole number, got '" + value + "'");
        }
    }

    private static boolean parseBoolean(String key, String value) {
        return switch (value.toLowerCase()) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new IllegalArgumentException(key + " must be true or false, got '" + value + "'");
        };
    }

    /** ISO-8601 ({@code PT30S}) or a number with a unit: {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}. */
    static Duration parseDuration(String key, String value) {
        String v = value.strip().toLowerCase();
        try {
            if (v.startsWith("pt") || v.startsWith("p")) {
                return Duration.parse(value.strip().toUpperCase());
            }
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            long amount = Long.parseLong(v.substring(0, v.length() - 1));
            return switch (v.charAt(v.length() - 1)) {
                case 's' -> Duration.ofSeconds(amount);
                case 'm' -> Duration.ofMinutes(amount);
                case 'h' -> Duration.ofHours(amount);
                default -> throw new NumberFormatException();
            };
        } catch (NumberFormatException | DateTimeParseException | StringIndexOutOfBoundsException e) {
            throw new IllegalArgumentException(key + " must be a duration such as 30s, 500ms, 5m or PT30S, got '" + value + "'");
        }
    }

    public static final class Builder {
        private String job;
        private Path localDirectory = Paths.get(System.getProperty("java.io.tmpdir"), "mpirun-ft");
        private Path sharedDirectory = Paths.get("/shared/mpirun-ft");
        private int checkpointEveryIterations;
        private Duration checkpointInterval;
        private Path controlDirectory;
        private final List<String> spares = new ArrayList<>();
        private Duration finalizeTimeout = Duration.ofSeconds(30);
        private boolean keepInMemory = true;

        private Builder() {
        }

        public Builder job(String job) {
            this.job = job;
            return this;
        }

        public Builder localDirectory(Path directory) {
            this.localDirectory = directory;
            return this;
        }

        public Builder sharedDirectory(Path directory) {
            this.sharedDirectory = directory;
            return this;
        }

        public Builder checkpointEveryIterations(int iterations) {
            this.checkpointEveryIterations = iterations;
            return this;
        }

        public Builder checkpointInterval(Duration interval) {
            this.checkpointInterval = interval;
            return this;
        }

        public Builder controlDirectory(Path directory) {
            this.controlDirectory = directory;
            return this;
        }

        public Builder spares(List<String> hosts) {
            this.spares.clear();
            for (String host : hosts) {
                if (!host.isBlank()) {
                    this.spares.add(host.strip());
                }
            }
            return this;
        }

        public Builder finalizeTimeout(Duration timeout) {
            this.finalizeTimeout = timeout;
            return this;
        }

        public Builder keepInMemory(boolean keep) {
            this.keepInMemory = keep;
            return this;
        }

        public FtConfig build() {
            if (job != null && !job.matches("[A-Za-z0-9._-]{1,100}")) {
                throw new IllegalArgumentException(JOB + " must be 1-100 of [A-Za-z0-9._-], got '" + job + "'");
            }
            if (checkpointEveryIterations < 0) {
                throw new IllegalArgumentException(CHECKPOINT_EVERY + " must be >= 0, got " + checkpointEveryIterations);
            }
            if (checkpointInterval != null && (checkpointInterval.isNegative() || checkpointInterval.isZero())) {
                throw new IllegalArgumentException(CHECKPOINT_INTERVAL + " must be > 0, got " + checkpointInterval);
            }
            if (finalizeTimeout.isNegative() || finalizeTimeout.isZero()) {
                throw new IllegalArgumentException(FINALIZE_TIMEOUT + " must be > 0, got " + finalizeTimeout);
            }
            for (String host : spares) {
                if (!host.matches("[A-Za-z0-9._-]{1,253}")) {
                    throw new IllegalArgumentException(SPARES + " must be host names separated by commas, got '" + host + "'");
                }
            }
            return new FtConfig(this);
        }
    }
}
