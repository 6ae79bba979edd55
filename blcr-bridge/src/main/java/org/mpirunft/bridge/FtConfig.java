package org.mpirunft.bridge;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.mpirunft.bridge.storage.PartCodec;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.Names;
import org.mpirunft.common.NoSpareAction;

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
    /** The node daemon's rank channel; set by the daemon for the processes it starts (see {@link #fromEnvironment}). */
    public static final String RANK_SOCKET = "mpirunft.rank.socket";
    public static final String PLACEMENT_TIMEOUT = "mpirunft.placement.timeout";
    public static final String SPARES = "mpirunft.spares";
    /**
     * Without a daemon, what a recovery does when {@link #SPARES} has no spare left: {@code stop-job}
     * (the default) or {@code shrink}, go on with the survivors ({@link NoSpareAction}).
     */
    public static final String WHEN_NO_SPARE = "mpirunft.when.no.spare";
    public static final String FINALIZE_TIMEOUT = "mpirunft.finalize.timeout";
    public static final String KEEP_IN_MEMORY = "mpirunft.checkpoint.memory";
    /** Where parts go beyond the rank's memory, and how often: {@link StorageLevels#parse}. */
    public static final String CHECKPOINT_LEVELS = "mpirunft.checkpoint.levels";
    /** Incremental disk parts: a full part at least every N epochs, deltas of the changed blocks in between (1: always full). */
    public static final String CHECKPOINT_FULL_EVERY = "mpirunft.checkpoint.full.every";
    /** The XOR level's set size: parity over sets of about this many nodes (SCR's SET_SIZE; at least 3). */
    public static final String CHECKPOINT_XOR_SET = "mpirunft.checkpoint.xor.set";
    /** SCR's default set size. */
    public static final int DEFAULT_XOR_SET = 8;
    /** How parts are stored on disk: {@code none} or {@code zstd} ({@link PartCodec#parse}). */
    public static final String CHECKPOINT_COMPRESSION = "mpirunft.checkpoint.compression";
    /** How many of the job's world ranks, the last ones, are warm spares rather than application ranks; set by mpirun-ft. */
    public static final String WARM_SPARES = "mpirunft.warm.spares";
    /** Internal: the warm spare table, handed to a spawned replacement on its command line (it was not there to see the spares start). */
    public static final String WARM_TABLE = "mpirunft.warm.table";
    /**
     * Set by mpirun-ft before a program's first AOT training: the file in which rank 0 notes
     * that its JVM can train a JDK AOT cache ({@link org.mpirunft.bridge.internal.AotTraining}).
     */
    public static final String AOT_PROBE = "mpirunft.aot.probe";
    /**
     * Set by mpirun-ft for a program it cannot tell uses the rank library (one started through a
     * script): the file rank 0 creates once the library started, so that the program's later
     * runs get warm spares ({@link org.mpirunft.bridge.internal.RankLibraryNote}).
     */
    public static final String RANK_LIBRARY_NOTE = "mpirunft.rank.library.note";

    private final Optional<String> job;
    private final Path localDirectory;
    private final Path sharedDirectory;
    private final int checkpointEveryIterations;
    private final Optional<Duration> checkpointInterval;
    private final Optional<Path> rankSocket;
    private final Duration placementTimeout;
    private final List<String> spares;
    private final NoSpareAction whenNoSpare;
    private final Duration finalizeTimeout;
    private final boolean keepInMemory;
    private final StorageLevels levels;
    private final int fullEvery;
    private final int xorSet;
    private final PartCodec compression;
    private final int warmSpares;
    private final Optional<String> warmTable;
    private final Optional<Path> aotProbe;
    private final Optional<Path> rankLibraryNote;

    private FtConfig(Builder builder) {
        this.job = Optional.ofNullable(builder.job);
        this.localDirectory = builder.localDirectory;
        this.sharedDirectory = builder.sharedDirectory;
        this.checkpointEveryIterations = builder.checkpointEveryIterations;
        this.checkpointInterval = Optional.ofNullable(builder.checkpointInterval);
        this.rankSocket = Optional.ofNullable(builder.rankSocket);
        this.placementTimeout = builder.placementTimeout;
        this.spares = List.copyOf(builder.spares);
        this.whenNoSpare = builder.whenNoSpare;
        this.finalizeTimeout = builder.finalizeTimeout;
        this.keepInMemory = builder.keepInMemory;
        this.levels = builder.levels;
        this.fullEvery = builder.fullEvery;
        this.xorSet = builder.xorSet;
        this.compression = builder.compression;
        this.warmSpares = builder.warmSpares;
        this.warmTable = Optional.ofNullable(builder.warmTable);
        this.aotProbe = Optional.ofNullable(builder.aotProbe);
        this.rankLibraryNote = Optional.ofNullable(builder.rankLibraryNote);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Settings from {@code mpirunft.*} system properties and {@code MPIRUN_FT_*} variables. The
     * rank socket is the exception: the environment wins, because the node's daemon puts it
     * there for every process it starts, a replacement on a spare included, and each node has
     * its own.
     */
    public static FtConfig fromEnvironment() {
        return fromLookup(key -> {
            String fromEnvironment = System.getenv(environmentName(key));
            if (key.equals(RANK_SOCKET) && fromEnvironment != null && !fromEnvironment.isBlank()) {
                return fromEnvironment;
            }
            String value = System.getProperty(key);
            return value != null ? value : fromEnvironment;
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
        value(lookup, CHECKPOINT_INTERVAL).ifPresent(v -> builder.checkpointInterval(Durations.parse(CHECKPOINT_INTERVAL, v)));
        value(lookup, RANK_SOCKET).ifPresent(v -> builder.rankSocket(Paths.get(v)));
        value(lookup, PLACEMENT_TIMEOUT).ifPresent(v -> builder.placementTimeout(Durations.parse(PLACEMENT_TIMEOUT, v)));
        value(lookup, SPARES).ifPresent(v -> builder.spares(List.of(v.split(","))));
        value(lookup, WHEN_NO_SPARE).ifPresent(v -> builder.whenNoSpare(parseNoSpareAction(v)));
        value(lookup, FINALIZE_TIMEOUT).ifPresent(v -> builder.finalizeTimeout(Durations.parse(FINALIZE_TIMEOUT, v)));
        value(lookup, KEEP_IN_MEMORY).ifPresent(v -> builder.keepInMemory(parseBoolean(KEEP_IN_MEMORY, v)));
        value(lookup, CHECKPOINT_LEVELS).ifPresent(v -> builder.levels(StorageLevels.parse(CHECKPOINT_LEVELS, v)));
        value(lookup, CHECKPOINT_FULL_EVERY).ifPresent(v -> builder.fullEvery(parseInt(CHECKPOINT_FULL_EVERY, v)));
        value(lookup, CHECKPOINT_XOR_SET).ifPresent(v -> builder.xorSet(parseInt(CHECKPOINT_XOR_SET, v)));
        value(lookup, CHECKPOINT_COMPRESSION).ifPresent(v -> builder.compression(PartCodec.parse(CHECKPOINT_COMPRESSION, v)));
        value(lookup, WARM_SPARES).ifPresent(v -> builder.warmSpares(parseInt(WARM_SPARES, v)));
        value(lookup, WARM_TABLE).ifPresent(builder::warmTable);
        value(lookup, AOT_PROBE).ifPresent(v -> builder.aotProbe(Paths.get(v)));
        value(lookup, RANK_LIBRARY_NOTE).ifPresent(v -> builder.rankLibraryNote(Paths.get(v)));
        return builder.build();
    }

    /** These settings as system properties, for a replacement rank's command line; never the rank socket, which is each node's own. */
    public Map<String, String> toProperties(String resolvedJob) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put(JOB, resolvedJob);
        properties.put(LOCAL_DIR, localDirectory.toString());
        properties.put(SHARED_DIR, sharedDirectory.toString());
        properties.put(CHECKPOINT_EVERY, Integer.toString(checkpointEveryIterations));
        checkpointInterval.ifPresent(d -> properties.put(CHECKPOINT_INTERVAL, d.toString()));
        properties.put(PLACEMENT_TIMEOUT, placementTimeout.toString());
        if (!spares.isEmpty()) {
            properties.put(SPARES, String.join(",", spares));
        }
        properties.put(WHEN_NO_SPARE, whenNoSpare.configName());
        properties.put(FINALIZE_TIMEOUT, finalizeTimeout.toString());
        properties.put(KEEP_IN_MEMORY, Boolean.toString(keepInMemory));
        properties.put(CHECKPOINT_LEVELS, levels.render());
        properties.put(CHECKPOINT_FULL_EVERY, Integer.toString(fullEvery));
        properties.put(CHECKPOINT_XOR_SET, Integer.toString(xorSet));
        properties.put(CHECKPOINT_COMPRESSION, compression.setting());
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

    /** The node daemon's rank channel: orders come down it and reports go up it. Empty: no daemon (plain mpirun). */
    public Optional<Path> rankSocket() {
        return rankSocket;
    }

    /** How long a recovery waits for the scheduler's placement of its lost ranks before it uses {@link #spares()}. */
    public Duration placementTimeout() {
        return placementTimeout;
    }

    /** Hosts for replacement ranks, in the order they are used, when no daemon places them. */
    public List<String> spares() {
        return spares;
    }

    /** Without a daemon, what a recovery does when no spare is left. */
    public NoSpareAction whenNoSpare() {
        return whenNoSpare;
    }

    public Duration finalizeTimeout() {
        return finalizeTimeout;
    }

    /** Whether survivors keep the committed epoch in memory to roll back without reading disk. */
    public boolean keepInMemory() {
        return keepInMemory;
    }

    /** Where checkpoint parts go beyond the rank's memory, and how often. */
    public StorageLevels levels() {
        return levels;
    }

    /** How parts are stored on disk. */
    public PartCodec compression() {
        return compression;
    }

    /** A full disk part at least every this many epochs, deltas in between; 1: always full. */
    public int fullEvery() {
        return fullEvery;
    }

    /** The XOR level's set size, in nodes. */
    public int xorSet() {
        return xorSet;
    }

    /** How many world ranks, the last ones, are warm spares; 0: every rank is an application rank. */
    public int warmSpares() {
        return warmSpares;
    }

    /** The warm spare table a spawned replacement was given; empty in a rank of the job's launch. */
    public Optional<String> warmTable() {
        return warmTable;
    }

    /** Where rank 0 notes that its JVM can train an AOT cache; empty unless mpirun-ft asks. */
    public Optional<Path> aotProbe() {
        return aotProbe;
    }

    /** Where rank 0 notes that this program uses the rank library; empty unless mpirun-ft asks. */
    public Optional<Path> rankLibraryNote() {
        return rankLibraryNote;
    }

    private static Optional<String> value(Function<String, String> lookup, String key) {
        String value = lookup.apply(key);
        return value == null || value.isBlank() ? Optional.empty() : Optional.of(value.strip());
    }

    private static int parseInt(String key, String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new BadValueException(key, "must be a whole number, got '" + value + "'");
        }
    }

    private static NoSpareAction parseNoSpareAction(String value) {
        NoSpareAction action;
        try {
            action = NoSpareAction.fromConfig(value);
        } catch (IllegalArgumentException e) {
            throw new BadValueException(WHEN_NO_SPARE, "must be stop-job or shrink, got '" + value + "'");
        }
        if (action == NoSpareAction.USE_COMPUTE) {
            // Only the scheduler knows which compute node has a free slot.
            throw new BadValueException(WHEN_NO_SPARE, "use-compute needs the node daemons (policies.when-no-spare); here it must be stop-job or shrink");
        }
        return action;
    }

    private static boolean parseBoolean(String key, String value) {
        return switch (value.toLowerCase()) {
            case "true", "yes", "1" -> true;
            case "false", "no", "0" -> false;
            default -> throw new BadValueException(key, "must be true or false, got '" + value + "'");
        };
    }

    public static final class Builder {
        private String job;
        private Path localDirectory = Paths.get(System.getProperty("java.io.tmpdir"), "mpirun-ft");
        private Path sharedDirectory = Paths.get("/shared/mpirun-ft");
        private int checkpointEveryIterations;
        private Duration checkpointInterval;
        private Path rankSocket;
        private Duration placementTimeout = Duration.ofSeconds(30);
        private final List<String> spares = new ArrayList<>();
        private NoSpareAction whenNoSpare = NoSpareAction.STOP_JOB;
        private Duration finalizeTimeout = Duration.ofSeconds(30);
        private boolean keepInMemory = true;
        private StorageLevels levels = StorageLevels.DEFAULT;
        private int fullEvery = 1;
        private int xorSet = DEFAULT_XOR_SET;
        private PartCodec compression = PartCodec.NONE;
        private int warmSpares;
        private String warmTable;
        private Path aotProbe;
        private Path rankLibraryNote;

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

        public Builder rankSocket(Path socket) {
            this.rankSocket = socket;
            return this;
        }

        public Builder placementTimeout(Duration timeout) {
            this.placementTimeout = timeout;
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

        public Builder levels(StorageLevels levels) {
            this.levels = java.util.Objects.requireNonNull(levels, "levels");
            return this;
        }

        public Builder compression(PartCodec codec) {
            this.compression = java.util.Objects.requireNonNull(codec, "codec");
            return this;
        }

        public Builder fullEvery(int epochs) {
            this.fullEvery = epochs;
            return this;
        }

        public Builder xorSet(int nodes) {
            this.xorSet = nodes;
            return this;
        }

        public Builder warmSpares(int count) {
            this.warmSpares = count;
            return this;
        }

        public Builder warmTable(String table) {
            this.warmTable = table;
            return this;
        }

        public Builder aotProbe(Path file) {
            this.aotProbe = file;
            return this;
        }

        public Builder rankLibraryNote(Path file) {
            this.rankLibraryNote = file;
            return this;
        }

        public Builder whenNoSpare(NoSpareAction action) {
            this.whenNoSpare = java.util.Objects.requireNonNull(action, WHEN_NO_SPARE);
            return this;
        }

        public FtConfig build() {
            if (job != null) {
                Names.requireName(JOB, job);
            }
            if (checkpointEveryIterations < 0) {
                throw new BadValueException(CHECKPOINT_EVERY, "must be >= 0, got " + checkpointEveryIterations);
            }
            if (checkpointInterval != null && (checkpointInterval.isNegative() || checkpointInterval.isZero())) {
                throw new BadValueException(CHECKPOINT_INTERVAL, "must be > 0, got " + checkpointInterval);
            }
            if (fullEvery < 1) {
                throw new BadValueException(CHECKPOINT_FULL_EVERY, "must be >= 1 (1: every part full), got " + fullEvery);
            }
            if (xorSet < 3) {
                throw new BadValueException(CHECKPOINT_XOR_SET, "must be >= 3 (a set of 2 is a partner copy), got " + xorSet);
            }
            if (warmSpares < 0) {
                throw new BadValueException(WARM_SPARES, "must be >= 0, got " + warmSpares);
            }
            if (placementTimeout.isNegative() || placementTimeout.isZero()) {
                throw new BadValueException(PLACEMENT_TIMEOUT, "must be > 0, got " + placementTimeout);
            }
            if (finalizeTimeout.isNegative() || finalizeTimeout.isZero()) {
                throw new BadValueException(FINALIZE_TIMEOUT, "must be > 0, got " + finalizeTimeout);
            }
            // Spares are node names: the daemons place replacements by them.
            spares.forEach(host -> Names.requireName(SPARES, host));
            return new FtConfig(this);
        }
    }
}
