package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whether mpirun-ft takes a program for one that uses the rank library (issue 48, item 7): from a
 * {@code java} command's class path, or from the note an earlier run's rank 0 left.
 */
class RankLibraryProgramTest {
    @TempDir
    Path dir;

    /** A jar with {@code entries} (empty files) and, if given, a manifest {@code Class-Path}. */
    static Path jar(Path file, String classPath, String... entries) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (classPath != null) {
            manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        Files.createDirectories(file.getParent());
        try (OutputStream out = Files.newOutputStream(file); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            for (String entry : entries) {
                jar.putNextEntry(new JarEntry(entry));
                jar.closeEntry();
            }
        }
        return file;
    }

    /** A jar holding the rank library's entry point, as mpirun-ft-rank.jar (or a fat jar with it) does. */
    static Path rankLibraryJar(Path file) throws IOException {
        return jar(file, null, "org/mpirunft/bridge/FtRank.class", "org/mpirunft/bridge/FtConfig.class");
    }

    private static Optional<JavaCommand> java(String... words) {
        return JavaCommand.of(List.of(words), Optional.empty());
    }

    @Test
    void readsTheClassPathAsTheJavaLauncherDoes() {
        assertEquals(List.of("app.jar", "lib/rank.jar"), java("java", "-cp", "app.jar:lib/rank.jar", "Main", "-cp", "x").orElseThrow().classPath(),
                "the program's own -cp after the main class is its argument");
        assertEquals(List.of("b.jar"), java("java", "-classpath", "a.jar", "--class-path", "b.jar", "Main").orElseThrow().classPath(),
                "the last one wins");
        assertEquals(List.of("c.jar"), java("/usr/lib/jvm/jdk-25/bin/java", "--class-path=c.jar", "Main").orElseThrow().classPath());
        JavaCommand withOptions = java("java", "--enable-native-access", "ALL-UNNAMED", "--add-opens", "java.base/java.lang=ALL-UNNAMED",
                "-Xmx1g", "-Dk=v", "-cp", "d.jar", "pkg.Main", "arg").orElseThrow();
        assertEquals(List.of("d.jar"), withOptions.classPath());
        assertEquals("pkg.Main", withOptions.main(), "an option's value is not the main class");
        assertEquals(List.of("from-env.jar", "lib/*"), JavaCommand.of(List.of("java", "Main"), Optional.of("from-env.jar:lib/*"))
                .orElseThrow().classPath(), "no -cp: CLASSPATH");
        assertEquals(List.of("."), java("java", "Main").orElseThrow().classPath(), "no -cp, no CLASSPATH: the working directory");
        JavaCommand jar = java("java", "-Xss1m", "-cp", "ignored.jar", "-jar", "app.jar", "in.dat").orElseThrow();
        assertEquals(List.of("app.jar"), jar.classPath(), "-jar: the jar alone (and its manifest's)");
        assertTrue(jar.jar());
        assertEquals("-jar app.jar", jar.main());
    }

    @Test
    void aProgramThatIsNoJavaCommandOrWhoseClassPathIsNotSeenIsNone() {
        assertEquals(Optional.empty(), java("./a.out", "4"), "a C program");
        assertEquals(Optional.empty(), java("npb", "cg", "A"), "a script: the java it starts is not seen");
        assertEquals(Optional.empty(), java("java", "@options", "Main"), "an argument file");
        assertEquals(Optional.empty(), java("java", "-m", "app/app.Main"), "a module");
        assertEquals(Optional.empty(), java("java", "-version"), "no main class");
        assertEquals(Optional.empty(), java("javac", "-cp", "x.jar", "Main.java"));
    }

    @Test
    void findsTheRankLibraryInAJarADirectoryAWildcardOrAJarsManifest() throws IOException {
        rankLibraryJar(dir.resolve("lib/mpirun-ft-rank.jar"));
        jar(dir.resolve("app.jar"), null, "app/Main.class");
        jar(dir.resolve("runnable.jar"), "lib/mpirun-ft-rank.jar", "app/Main.class");
        jar(dir.resolve("alone.jar"), "lib/other.jar", "app/Main.class");
        Files.createDirectories(dir.resolve("classes/org/mpirunft/bridge"));
        Files.writeString(dir.resolve("classes/org/mpirunft/bridge/FtRank.class"), "");
        Files.createDirectories(dir.resolve("plain-classes/app"));

        assertTrue(holds("java", "-cp", "app.jar:lib/mpirun-ft-rank.jar", "app.Main"), "a user's java -cp app.jar:mpirun-ft-rank.jar");
        assertTrue(holds("java", "-cp", dir.resolve("lib/mpirun-ft-rank.jar").toString(), "app.Main"), "an absolute path");
        assertTrue(holds("java", "-cp", "app.jar:lib/*", "app.Main"), "a wildcard stands for the directory's jars");
        assertTrue(holds("java", "-cp", "plain-classes:classes", "app.Main"), "a directory of classes (a build's target/classes)");
        assertTrue(holds("java", "-jar", "runnable.jar"), "the manifest's Class-Path, relative to the jar");
        assertFalse(holds("java", "-jar", "alone.jar"), "a manifest naming other jars only");
        assertFalse(holds("java", "-cp", "app.jar:plain-classes", "app.Main"), "Open MPI's bindings alone");
        assertFalse(holds("java", "-cp", "missing.jar:app.jar", "app.Main"), "a missing entry holds nothing");
        assertFalse(holds("java", "-cp", "*", "app.Main"), "the working directory's jars, none of them the library");
    }

    private boolean holds(String... words) {
        return java(words).orElseThrow().holdsRankLibrary(dir);
    }

    @Test
    void aProgramNotKnownIsAskedForTheNoteThatMakesItKnownToItsLaterRuns() throws IOException {
        Path checkpoints = dir.resolve("ck/alice");
        List<String> script = List.of("./run-solver", "in.dat");
        Files.writeString(dir.resolve("run-solver"), "#!/bin/sh\nexec java -cp \"$(dirname \"$0\")/lib/*\" Solver \"$@\"\n");
        RankLibraryProgram first = RankLibraryProgram.of(checkpoints, script, dir, null, Optional.empty());
        assertFalse(first.known(), "a script's class path is not seen");
        assertEquals("./run-solver", first.name());
        Map<String, String> environment = first.noteEnvironment();
        Path note = Path.of(environment.get("MPIRUN_FT_RANK_LIBRARY_NOTE"));
        assertEquals(checkpoints.resolve(".rank-library"), note.getParent(), "in the user's directory of the shared storage");
        assertTrue(Files.isDirectory(note.getParent()), "made by mpirun-ft, for rank 0 to write in");
        assertFalse(first.known(), "rank 0 has not noted it yet");

        Files.createFile(note); // what the rank library's rank 0 does once it started
        assertTrue(RankLibraryProgram.of(checkpoints, script, dir, null, Optional.empty()).known(), "the next run of the same program");
        assertFalse(RankLibraryProgram.of(checkpoints, List.of("./run-solver", "other.dat"), dir, null, Optional.empty()).known(),
                "another command line is another program");
    }

    @Test
    void aJavaCommandWithTheLibraryIsKnownFromItsFirstRunAndOneWithoutIsNot() throws IOException {
        rankLibraryJar(dir.resolve("mpirun-ft-rank.jar"));
        jar(dir.resolve("mpi.jar"), null, "mpi/MPI.class");
        Path checkpoints = dir.resolve("ck/alice");
        RankLibraryProgram library = RankLibraryProgram.of(checkpoints, List.of("java", "-cp", "app.jar:mpirun-ft-rank.jar", "App"), dir,
                null, Optional.empty());
        assertTrue(library.known());
        RankLibraryProgram bindingsOnly = RankLibraryProgram.of(checkpoints, List.of("java", "-cp", "mpi.jar", "Ring"), dir, null,
                Optional.empty());
        assertFalse(bindingsOnly.known());
        assertEquals("java Ring", bindingsOnly.name(), "a message names what the JVM runs");
        assertTrue(RankLibraryProgram.of(checkpoints, List.of("java", "Ring"), dir, null, Optional.of("mpi.jar:mpirun-ft-rank.jar")).known(),
                "from CLASSPATH");
    }

    @Test
    void aLaunchAsksAboutItsProgramOnlyWhenThatDecidesItsWarmSpares() throws IOException {
        rankLibraryJar(dir.resolve("mpirun-ft-rank.jar"));
        HostPlan plan = new HostPlan(List.of(new HostSlot("node1", 1)), List.of(new HostSlot("spare1", 1)), 1, HostPlan.Mapping.BY_SLOT);
        LaunchSettings.Builder settings = LaunchSettings.builder().job("j").checkpointDir(dir.resolve("ck")).user("alice")
                .program(List.of("./solver"));
        RankLibraryProgram.Verdict unknown = RankLibraryProgram.verdict(settings.build(), plan, dir, Map.of());
        assertFalse(unknown.known());
        assertTrue(unknown.noteEnvironment().containsKey(RankLibraryProgram.NOTE_VARIABLE), "rank 0 is asked for the note");
        assertEquals(new RankLibraryProgram.Verdict(false, Map.of()),
                RankLibraryProgram.verdict(settings.warmSpares(WarmSpareMode.ON).build(), plan, dir, Map.of()), "on decides alone");
        assertEquals(new RankLibraryProgram.Verdict(true, Map.of()), RankLibraryProgram.verdict(settings.warmSpares(WarmSpareMode.AUTO)
                .program(List.of("java", "-cp", "mpirun-ft-rank.jar", "App")).build(), plan, dir, Map.of()), "nothing to ask");
    }

    @Test
    void theRanksClassPathVariableIsTheUsersExportElseMpirunFtsOwn() {
        assertEquals(Optional.of("a.jar"), RankLibraryProgram.classPathVariable(List.of(), Map.of("CLASSPATH", "a.jar")));
        assertEquals(Optional.of("b.jar"), RankLibraryProgram.classPathVariable(List.of("-x", "CLASSPATH=b.jar"), Map.of("CLASSPATH", "a.jar")));
        assertEquals(Optional.of("a.jar"), RankLibraryProgram.classPathVariable(List.of("-x", "CLASSPATH"), Map.of("CLASSPATH", "a.jar")));
        assertEquals(Optional.empty(), RankLibraryProgram.classPathVariable(List.of("--mca", "btl", "tcp,self"), Map.of()));
    }
}
