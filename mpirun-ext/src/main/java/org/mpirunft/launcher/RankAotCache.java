package org.mpirunft.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.launcher.internal.LineDropFilter;

/**
 * A JDK AOT cache (JEP 483/514) for the job's rank JVMs: the classes a rank loads, parsed and
 * linked ahead of time, so that a rank JVM, the job's own at launch as much as a replacement or
 * a relaunch after a failure, spends less of its start loading classes. Measured by
 * {@code scripts/bench-aot}: NPB's first iteration 874.5 ms after mpirun's start without a cache,
 * 597 ms with one (medians of 6).
 *
 * <p>The options reach the rank JVMs through {@code JDK_JAVA_OPTIONS}, the one way into a
 * {@code java} that a script or a wrapper starts (the program is the user's, unmodified). One
 * cache per program (its command line and the files it names, see {@link #key}), in the shared
 * checkpoint directory, which every node sees at the same path. The program's first run asks
 * its rank 0 whether its JVM can train ({@link Use#PROBE}); the next trains: every rank JVM
 * writes a cache of its own when it exits ({@code -XX:AOTCacheOutput} with {@code %p}),
 * silently. After a run whose program finished, the largest of them (the
 * rank that loaded the most) becomes the program's cache and later runs start from it. A cache
 * that no longer fits the program (a jar changed) is ignored by the JVM, without a word.
 *
 * <p>The java launcher says {@code NOTE: Picked up JDK_JAVA_OPTIONS} on every start, and a
 * training rank's cache builder says {@code Picked up JAVA_TOOL_OPTIONS}: {@link #notices} are
 * those lines, which mpirun-ft drops from the job's stderr. A JVM older than 25 skips the
 * options it does not know.
 */
public final class RankAotCache {
    /** Read by the java launcher, not by other JVMs: the program's own java only. */
    public static final String VARIABLE = "JDK_JAVA_OPTIONS";
    /** Under the shared checkpoint directory: a job id starts with a letter or digit, so no job has this name. */
    static final String DIRECTORY = ".aot-cache";
    /** The first bytes of a HotSpot AOT cache (a static CDS archive's magic): a file without them is no cache. */
    private static final byte[] MAGIC = {(byte) 0xa2, (byte) 0xab, (byte) 0x0b, (byte) 0xf0};
    private static final Logger LOG = Logger.getLogger(RankAotCache.class.getName());
    /**
     * What a training launch allows its ranks, on top of {@code --exit-timeout}, to write their
     * caches after the program finished: each rank JVM writes its training record, then a child
     * JVM builds the cache from it. Five NPB rank JVMs on two cores here took about 7 s for the
     * records and more than 8 s more for the caches; a launch stopped before they are done
     * trains nothing, and the next one trains again.
     */
    static final Duration BUILD_ALLOWANCE = Duration.ofMinutes(2);

    /** Set for the ranks of a probing launch: where rank 0 notes that its JVM can train. */
    public static final String PROBE_VARIABLE = FtConfig.environmentName(FtConfig.AOT_PROBE);

    /**
     * What one launch does with the cache. A program trains only once its rank 0 said that its
     * JVM can ({@code AotTraining} in the rank library): a JDK 25 JVM whose class path holds a
     * directory of classes fails to write the cache and exits with status 1, and mpirun-ft does
     * not see the class path of a program that a script starts.
     */
    public enum Use {
        /** No cache: off, or nowhere to keep one. */
        OFF,
        /** The program's first run: its rank 0 says whether its JVM can train. */
        PROBE,
        /** Every rank JVM writes a cache when it exits. */
        TRAIN,
        /** The ranks start from the program's cache. */
        USE
    }

    private final Path directory;
    private final String key;

    private RankAotCache(Path directory, String key) {
        this.directory = directory;
        this.key = key;
    }

    /** The cache of {@code program} in {@code checkpointDir}; {@code path} looks up a bare program name. */
    public static RankAotCache of(Path checkpointDir, List<String> program, Path workingDir, String path) {
        return new RankAotCache(checkpointDir.resolve(DIRECTORY), key(program, workingDir, path));
    }

    /** The program's cache file, once a run has made one. */
    public Path cacheFile() {
        return directory.resolve(key + ".aot");
    }

    /** Where a probing launch's rank 0 notes that its JVM can train. */
    Path trainableMarker() {
        return directory.resolve(key + ".trainable");
    }

    /** What the next launch does: start from the cache if there is one, else train one if the JVM can, else ask. */
    public Use use() {
        if (Files.isRegularFile(cacheFile())) {
            return Use.USE;
        }
        try {
            Files.createDirectories(directory);
            if (!Files.isWritable(directory)) {
                return Use.OFF;
            }
            return Files.isRegularFile(trainableMarker()) ? Use.TRAIN : Use.PROBE;
        } catch (IOException e) {
            LOG.fine(() -> "mpirun-ft: no AOT cache for the ranks, cannot create " + directory + ": " + e.getMessage());
            return Use.OFF;
        }
    }

    /** The ranks' environment for a launch that does {@code use}: the JVM options, or the probe's file. */
    public Map<String, String> environment(Use use) {
        if (use == Use.PROBE) {
            return Map.of(PROBE_VARIABLE, trainableMarker().toString());
        }
        return options(use).map(o -> Map.of(VARIABLE, o)).orElse(Map.of());
    }

    /**
     * {@code JDK_JAVA_OPTIONS} for a launch that does {@code use}; empty for {@link Use#OFF} and
     * {@link Use#PROBE}. A JVM older than 25 skips the options it does not know rather than
     * refusing to start. A training JVM says nothing of its own (no VM output, no log): the
     * program's output stays the program's, and the builder's only line is one of the
     * {@link #notices}.
     */
    Optional<String> options(Use use) {
        return switch (use) {
            case OFF, PROBE -> Optional.empty();
            // The JVM's own complaints about a cache that does not fit (a changed class path or
            // JVM option) are mpirun-ft's business: the rank starts without it either way.
            case USE -> Optional.of(TOLERANT + " -Xlog:aot*=off,cds*=off -XX:AOTCache=" + cacheFile());
            case TRAIN -> Optional.of(TRAINING_QUIET + " -XX:AOTCacheOutput=" + directory.resolve(key + ".%p.aot"));
        };
    }

    private static final String TOLERANT = "-XX:+IgnoreUnrecognizedVMOptions";
    private static final String TRAINING_QUIET = TOLERANT + " -XX:+UnlockDiagnosticVMOptions -XX:-DisplayVMOutput -Xlog:disable";

    /**
     * The lines the JVMs print because of the options of {@code use}: the java launcher's note,
     * and for a training run the cache builder's, which repeats the training JVM's class path and
     * options and then its own.
     */
    public List<LineDropFilter.Drop> notices(Use use) {
        List<LineDropFilter.Drop> lines = new ArrayList<>();
        options(use).ifPresent(o -> lines.add(LineDropFilter.Drop.startingWith("NOTE: Picked up " + VARIABLE + ": " + o)));
        if (use == Use.TRAIN) {
            lines.add(new LineDropFilter.Drop("Picked up JAVA_TOOL_OPTIONS: ", " -XX:AOTCacheOutput=" + directory.resolve(key + ".pid")));
        }
        return lines;
    }

    /**
     * After a launch that trained, and whose program finished with no rank stopped (so each
     * rank's cache is whole): the largest rank cache becomes the program's, the
     * others go. Returns the cache adopted. A cache whose header is missing is never adopted;
     * one left by a run that did not finish is removed once it is a day old.
     */
    public Optional<Path> adopt(Clock clock) {
        List<Path> whole = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory, key + ".pid*.aot")) {
            for (Path file : files) {
                if (hasHeader(file)) {
                    whole.add(file);
                } else if (olderThanADay(file, clock)) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException e) {
            LOG.fine(() -> "mpirun-ft: reading " + directory + ": " + e.getMessage());
            return Optional.empty();
        }
        Optional<Path> largest = whole.stream().max(Comparator.comparingLong(RankAotCache::size));
        if (largest.isEmpty()) {
            return Optional.empty();
        }
        try {
            // One directory: the rename is atomic, and a launch sees the whole cache or none.
            Files.move(largest.get(), cacheFile(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            for (Path other : whole) {
                if (!other.equals(largest.get())) {
                    Files.deleteIfExists(other);
                }
            }
            return Optional.of(cacheFile());
        } catch (IOException e) {
            LOG.fine(() -> "mpirun-ft: adopting " + largest.get() + ": " + e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The program's identity: its command line, and the size and time of every file it names
     * (the program itself looked up on {@code path}, a jar, a script), so that a changed file
     * gets a new cache. A jar a script names inside it is not seen: the JVM ignores a cache
     * that no longer matches its class path.
     */
    static String key(List<String> program, Path workingDir, String path) {
        try {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            for (int i = 0; i < program.size(); i++) {
                String word = program.get(i);
                digest.update(word.getBytes(StandardCharsets.UTF_8));
                digest.update((byte) 0);
                Optional<Path> file = i == 0 ? executable(word, workingDir, path) : existingFile(workingDir.resolve(word));
                if (file.isPresent()) {
                    try {
                        BasicFileAttributes attributes = Files.readAttributes(file.get(), BasicFileAttributes.class);
                        digest.update((file.get().toRealPath() + "\0" + attributes.size() + "\0"
                                + attributes.lastModifiedTime().toMillis() + "\0").getBytes(StandardCharsets.UTF_8));
                    } catch (IOException gone) {
                        // Named but unreadable: the command line alone identifies it.
                    }
                }
            }
            return HexFormat.of().formatHex(digest.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    private static Optional<Path> executable(String program, Path workingDir, String path) {
        if (program.contains("/")) {
            return existingFile(workingDir.resolve(program));
        }
        if (path != null) {
            for (String dir : path.split(":")) {
                Optional<Path> found = existingFile(workingDir.resolve(dir.isEmpty() ? "." : dir).resolve(program));
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    private static Optional<Path> existingFile(Path candidate) {
        return Files.isRegularFile(candidate) ? Optional.of(candidate) : Optional.empty();
    }

    private static boolean hasHeader(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return java.util.Arrays.equals(in.readNBytes(MAGIC.length), MAGIC);
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean olderThanADay(Path file, Clock clock) {
        try {
            return Files.getLastModifiedTime(file).toInstant().isBefore(clock.instant().minus(Duration.ofDays(1)));
        } catch (IOException e) {
            return false;
        }
    }

    private static long size(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }
}
