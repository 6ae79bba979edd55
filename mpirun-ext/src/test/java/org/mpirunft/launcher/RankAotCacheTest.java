package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.launcher.internal.LineDropFilter;

class RankAotCacheTest {
    private static final byte[] HEADER = {(byte) 0xa2, (byte) 0xab, (byte) 0x0b, (byte) 0xf0};
    private static final Instant NOW = Instant.parse("2026-11-26T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @TempDir
    Path dir;

    private RankAotCache cache(List<String> program) {
        return RankAotCache.of(dir.resolve("ck"), program, dir, dir.resolve("bin").toString());
    }

    private static Path write(Path file, String body, boolean header) throws IOException {
        byte[] text = body.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] bytes = new byte[(header ? HEADER.length : 0) + text.length];
        if (header) {
            System.arraycopy(HEADER, 0, bytes, 0, HEADER.length);
        }
        System.arraycopy(text, 0, bytes, header ? HEADER.length : 0, text.length);
        return Files.write(file, bytes);
    }

    @Test
    void theFirstRunAsksRankZeroTheNextTrainsQuietlyAndTheLinesTheJvmsWillPrintAreKnown() throws IOException {
        RankAotCache cache = cache(List.of("java", "-cp", "app.jar", "App"));
        assertEquals(RankAotCache.Use.PROBE, cache.use());
        assertEquals(Map.of("MPIRUN_FT_AOT_PROBE", cache.trainableMarker().toString()), cache.environment(RankAotCache.Use.PROBE));
        assertEquals(List.of(), cache.notices(RankAotCache.Use.PROBE), "no JVM option, no notice");

        Files.writeString(cache.trainableMarker(), "app.jar\n");
        assertEquals(RankAotCache.Use.TRAIN, cache.use(), "rank 0 said its JVM can train");
        Path output = cache.cacheFile().resolveSibling(cache.cacheFile().getFileName().toString().replace(".aot", ".%p.aot"));
        String options = "-XX:+IgnoreUnrecognizedVMOptions -XX:+UnlockDiagnosticVMOptions -XX:-DisplayVMOutput -Xlog:disable"
                + " -XX:AOTCacheOutput=" + output;
        assertEquals(Map.of("JDK_JAVA_OPTIONS", options), cache.environment(RankAotCache.Use.TRAIN));
        assertEquals(dir.resolve("ck").resolve(RankAotCache.DIRECTORY), cache.cacheFile().getParent());
        assertEquals(List.of(LineDropFilter.Drop.startingWith("NOTE: Picked up JDK_JAVA_OPTIONS: " + options),
                new LineDropFilter.Drop("Picked up JAVA_TOOL_OPTIONS: ", " -XX:AOTCacheOutput=" + output.toString().replace("%p.aot", "pid"))),
                cache.notices(RankAotCache.Use.TRAIN));
        assertEquals(Map.of(), cache.environment(RankAotCache.Use.OFF));
        assertEquals(List.of(), cache.notices(RankAotCache.Use.OFF));
    }

    @Test
    void theLargestWholeRankCacheBecomesTheProgramsAndLaterRunsStartFromIt() throws IOException {
        RankAotCache cache = cache(List.of("java", "-cp", "app.jar", "App"));
        assertEquals(RankAotCache.Use.PROBE, cache.use());
        Files.writeString(cache.trainableMarker(), "app.jar\n");
        Path caches = cache.cacheFile().getParent();
        String key = cache.cacheFile().getFileName().toString().replace(".aot", "");
        write(caches.resolve(key + ".pid100.aot"), "rank 0, which loaded the most classes", true);
        Path smaller = write(caches.resolve(key + ".pid101.aot"), "rank 1", true);
        Path torn = write(caches.resolve(key + ".pid102.aot"), "no header, and longer than any other file here", false);
        Path otherProgram = write(caches.resolve("0123456789abcdef.pid103.aot"), "another program's", true);

        assertEquals(Optional.of(cache.cacheFile()), cache.adopt(CLOCK));
        assertTrue(new String(Files.readAllBytes(cache.cacheFile()), java.nio.charset.StandardCharsets.UTF_8).endsWith("the most classes"));
        assertFalse(Files.exists(smaller), "one cache per program is kept");
        assertTrue(Files.exists(torn), "a file without a header is never adopted, and a fresh one may still be being written");
        assertTrue(Files.exists(otherProgram));
        assertEquals(RankAotCache.Use.USE, cache.use());
        String options = "-XX:+IgnoreUnrecognizedVMOptions -Xlog:aot*=off,cds*=off -XX:AOTCache=" + cache.cacheFile();
        assertEquals(Map.of("JDK_JAVA_OPTIONS", options), cache.environment(RankAotCache.Use.USE));
        assertEquals(List.of(LineDropFilter.Drop.startingWith("NOTE: Picked up JDK_JAVA_OPTIONS: " + options)), cache.notices(RankAotCache.Use.USE));

        Files.setLastModifiedTime(torn, FileTime.from(NOW.minus(Duration.ofHours(25))));
        assertEquals(Optional.empty(), cache.adopt(CLOCK), "nothing new to adopt");
        assertFalse(Files.exists(torn), "a torn file a day old is gone");
        assertEquals(RankAotCache.Use.USE, cache.use(), "the adopted cache stays");
    }

    @Test
    void aProgramIsItsCommandLineAndTheFilesItNames() throws IOException {
        Files.createDirectories(dir.resolve("bin"));
        Path script = Files.writeString(dir.resolve("bin").resolve("solver"), "#!/bin/sh\n");
        Path jar = Files.writeString(dir.resolve("app.jar"), "v1");
        String solver = RankAotCache.key(List.of("solver", "in.dat"), dir, dir.resolve("bin").toString());
        assertEquals(solver, RankAotCache.key(List.of("solver", "in.dat"), dir, dir.resolve("bin").toString()));
        assertNotEquals(solver, RankAotCache.key(List.of("solver", "other.dat"), dir, dir.resolve("bin").toString()));
        Files.setLastModifiedTime(script, FileTime.from(NOW));
        assertNotEquals(solver, RankAotCache.key(List.of("solver", "in.dat"), dir, dir.resolve("bin").toString()),
                "the program found on the PATH changed");
        String app = RankAotCache.key(List.of("java", "-jar", "app.jar"), dir, null);
        Files.writeString(jar, "v2, a longer jar");
        assertNotEquals(app, RankAotCache.key(List.of("java", "-jar", "app.jar"), dir, null), "a jar it names changed");
        assertTrue(app.matches("[0-9a-f]{16}"), app);
    }

    @Test
    void noWritableDirectoryNoCache() throws IOException {
        Files.writeString(dir.resolve("ck"), "a file where the checkpoint directory should be");
        RankAotCache cache = cache(List.of("java", "App"));
        assertEquals(RankAotCache.Use.OFF, cache.use());
        assertEquals(Optional.empty(), cache.adopt(CLOCK));
    }
}
