package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * A program that is a {@code java} command, as the java launcher reads its words: the class
 * path its JVM gets and what it runs. mpirun-ft looks at it before the launch to tell whether the
 * program has the rank library on its class path. A {@code java} a script starts is not seen.
 *
 * @param classPath the class path's entries as written: from {@code -cp}, {@code -classpath} or
 *                  {@code --class-path} (the last one wins, as for the launcher), else
 *                  {@code CLASSPATH}, else the working directory; for {@code -jar}, the jar and its
 *                  manifest's {@code Class-Path} (the launcher then ignores the others)
 * @param main      the main class, or {@code -jar FILE}, for messages
 * @param jar       whether it runs a jar ({@code -jar}): the class path is that jar and its manifest's
 */
public record JavaCommand(List<String> classPath, String main, boolean jar) {
    /** The rank library's entry point, in a jar or a directory of classes on the class path. */
    static final String RANK_LIBRARY_CLASS = "org/mpirunft/bridge/FtRank.class";

    /**
     * The java launcher's options whose value is the next word (JDK 25's {@code java --help}); the
     * others are one word each ({@code -Dx=y}, {@code -Xmx1g}, {@code --add-opens=...}).
     */
    private static final Set<String> VALUED = Set.of("-p", "--module-path", "--upgrade-module-path", "--add-modules",
            "--enable-native-access", "--limit-modules", "--add-reads", "--add-exports", "--add-opens", "--patch-module",
            "--source");

    public JavaCommand {
        classPath = List.copyOf(classPath);
    }

    /**
     * {@code program} as a java command, or empty if it is none: its first word is not
     * {@code java}, or it runs a module ({@code -m}), or reads options from an {@code @file},
     * whose class path mpirun-ft would only guess. {@code classPathVariable} is the
     * {@code CLASSPATH} the ranks' JVMs get, if any.
     */
    public static Optional<JavaCommand> of(List<String> program, Optional<String> classPathVariable) {
        if (program.isEmpty() || !Path.of(program.getFirst()).getFileName().toString().equals("java")) {
            return Optional.empty();
        }
        String classPath = null;
        for (int i = 1; i < program.size(); i++) {
            String word = program.get(i);
            switch (word) {
                case "-cp", "-classpath", "--class-path" -> {
                    if (i + 1 == program.size()) {
                        return Optional.empty();
                    }
                    classPath = program.get(++i);
                }
                case "-jar" -> {
                    return i + 1 < program.size() ? Optional.of(new JavaCommand(List.of(program.get(i + 1)), "-jar " + program.get(i + 1), true))
                            : Optional.empty();
                }
                case "-m", "--module" -> {
                    return Optional.empty();
                }
                default -> {
                    if (word.startsWith("@") || word.startsWith("--module=")) {
                        return Optional.empty();
                    } else if (word.startsWith("--class-path=")) {
                        classPath = word.substring("--class-path=".length());
                    } else if (VALUED.contains(word)) {
                        i++;
                    } else if (!word.startsWith("-")) {
                        String entries = classPath != null ? classPath : classPathVariable.orElse(".");
                        return Optional.of(new JavaCommand(List.of(entries.split(":", -1)), word, false));
                    }
                }
            }
        }
        return Optional.empty(); // no main class: the JVM prints its usage and runs nothing
    }

    /**
     * Whether a jar or directory of the class path, relative entries taken from
     * {@code workingDir}, holds the rank library. A {@code DIR/*} entry stands for the jars in
     * DIR, as for the launcher; an entry that is missing or unreadable holds nothing.
     */
    public boolean holdsRankLibrary(Path workingDir) {
        if (jar) {
            Path file = workingDir.resolve(classPath.getFirst());
            if (jarHoldsRankLibrary(file)) {
                return true;
            }
            for (Path entry : manifestClassPath(file)) {
                if (entryHoldsRankLibrary(entry)) {
                    return true;
                }
            }
            return false;
        }
        for (String entry : classPath) {
            // An empty entry is the working directory, as for the launcher.
            Path path = workingDir.resolve(entry.isEmpty() ? "." : entry);
            if (entry.equals("*") || entry.endsWith("/*")) {
                if (anyJarHoldsRankLibrary(path.getParent())) {
                    return true;
                }
            } else if (entryHoldsRankLibrary(path)) {
                return true;
            }
        }
        return false;
    }

    private static boolean entryHoldsRankLibrary(Path entry) {
        return Files.isDirectory(entry) ? Files.isRegularFile(entry.resolve(RANK_LIBRARY_CLASS)) : jarHoldsRankLibrary(entry);
    }

    private static boolean anyJarHoldsRankLibrary(Path directory) {
        if (!Files.isDirectory(directory)) {
            return false;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(directory)) {
            for (Path file : files) {
                if (file.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jar") && jarHoldsRankLibrary(file)) {
                    return true;
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static boolean jarHoldsRankLibrary(Path file) {
        if (!Files.isRegularFile(file)) {
            return false;
        }
        try (JarFile jar = new JarFile(file.toFile())) {
            return jar.getEntry(RANK_LIBRARY_CLASS) != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** A jar's manifest {@code Class-Path}: space-separated URLs, relative ones to the jar's directory. */
    private static List<Path> manifestClassPath(Path file) {
        List<Path> entries = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return entries;
        }
        try (JarFile jar = new JarFile(file.toFile())) {
            Manifest manifest = jar.getManifest();
            String value = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
            if (value != null) {
                java.net.URI base = file.toAbsolutePath().getParent().toUri();
                for (String url : value.trim().split("\\s+")) {
                    java.net.URI entry = url.isEmpty() ? null : base.resolve(url);
                    if (entry != null && "file".equals(entry.getScheme())) {
                        entries.add(Path.of(entry));
                    }
                }
            }
        } catch (IOException | IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            // An unreadable manifest names nothing.
        }
        return entries;
    }
}
