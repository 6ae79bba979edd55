package org.mpirunft.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * A test program's sleep per iteration, which paces a job so that a test can act in the middle
 * of it (kill a node at iteration 12, look, heal). Once the test has done what it came for, the
 * rest of the run need not be paced: an argument {@code unpaced-when=PATH} makes the program stop
 * sleeping once PATH exists, and {@code ClusterJob} creates it when the test waits for the end.
 * The sleep changes no result: every value depends on the iterations alone.
 */
public final class Pacing {
    private static final String WHEN = "unpaced-when=";

    private final long millis;
    private final Optional<Path> unpacedWhen;
    private boolean unpaced;

    private Pacing(long millis, Optional<Path> unpacedWhen) {
        this.millis = millis;
        this.unpacedWhen = unpacedWhen;
    }

    /** {@code millis} per iteration, until the file that {@code args}' {@code unpaced-when=PATH} names exists. */
    public static Pacing of(long millis, String[] args) {
        return new Pacing(millis, unpacedWhenIn(Arrays.asList(args)));
    }

    /** The file that {@code args}' {@code unpaced-when=PATH} names, if any. */
    public static Optional<Path> unpacedWhenIn(java.util.List<String> args) {
        return args.stream().filter(a -> a.startsWith(WHEN)).findFirst().map(a -> Path.of(a.substring(WHEN.length())));
    }

    /** The argument that unpaces a program once {@code file} exists. */
    public static String unpacedWhen(Path file) {
        return WHEN + file;
    }

    /** Sleeps one iteration's pace, unless the run is unpaced by now. */
    public void sleep() {
        if (millis <= 0 || unpaced) {
            return;
        }
        if (unpacedWhen.isPresent() && Files.exists(unpacedWhen.get())) {
            unpaced = true;
            return;
        }
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
