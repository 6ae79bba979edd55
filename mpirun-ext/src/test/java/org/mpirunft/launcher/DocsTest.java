package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * The top-level README, the pages under {@code docs/} and the modules' READMEs stay what readers
 * need: short, current, and pointing only at what exists. History lives in git and in
 * the results files, so no commit hash belongs in any of them; every relative link they name
 * must be in the repository, and so must every results file README.md and docs/ name.
 */
class DocsTest {
    /** The most lines the README may have. */
    static final int README_MAX_LINES = 250;

    /**
     * A results path as the docs name one: {@code npb-harness/results/bench-B-warm/},
     * {@code ../mpirun-ext/results/chaos-20261130-043107.txt} in a link, or a bare
     * {@code results/...}. Not preceded by a character that would make it part of a longer path.
     */
    private static final Pattern RESULTS_PATH = Pattern.compile("(?<![\\w./-])((?:\\.\\./)*(?:[\\w.-]+/)?results/[\\w.*/-]+)");

    /**
     * A word of 7 to 40 lower-case hex digits, as git abbreviates a commit. {@link #commitHashes}
     * keeps only those with a digit and a letter, so that numbers (dates, counts) and words made of
     * the letters a-f are not taken for hashes.
     */
    private static final Pattern HEX_WORD = Pattern.compile("(?<![0-9A-Za-z])[0-9a-f]{7,40}(?![0-9A-Za-z])");

    /** An inline markdown link or image: {@code [text](target)} or {@code [text](target "title")}. */
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    private static final Path ROOT = SimulatedCluster.repoRoot();

    @Test
    void everyResultsFileTheDocsNameExists() {
        List<String> missing = new ArrayList<>();
        for (Path doc : docs()) {
            for (String path : resultsPaths(read(doc))) {
                if (!resultsPathExists(doc, path)) {
                    missing.add(ROOT.relativize(doc) + ": " + path);
                }
            }
        }
        assertEquals(List.of(), missing, "results files named in the docs but not in the repository");
    }

    @Test
    void readmeIsShort() throws IOException {
        int lines = Files.readAllLines(ROOT.resolve("README.md")).size();
        assertTrue(lines <= README_MAX_LINES, "README.md has " + lines + " lines, more than " + README_MAX_LINES
                + "; move details to docs/");
    }

    @Test
    void noCommitHashInTheDocs() {
        List<String> found = new ArrayList<>();
        for (Path doc : docsAndModuleReadmes()) {
            List<String> lines = read(doc).lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                for (String hash : commitHashes(lines.get(i))) {
                    found.add(ROOT.relativize(doc) + ":" + (i + 1) + ": " + hash);
                }
            }
        }
        assertEquals(List.of(), found, "commit hashes in the docs (history belongs in git and the results files)");
    }

    @Test
    void everyRelativeLinkPointsToAFileThatExists() {
        List<String> broken = new ArrayList<>();
        for (Path doc : docsAndModuleReadmes()) {
            for (String target : relativeLinks(read(doc))) {
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                if (!Files.exists(doc.getParent().resolve(file).normalize())) {
                    broken.add(ROOT.relativize(doc) + ": " + target);
                }
            }
        }
        assertEquals(List.of(), broken, "relative links in the docs to files that do not exist");
    }

    @Test
    void takesCommitHashesForHashesAndNothingElse() {
        assertEquals(List.of("a1371a8", "412a8966436c3cd725a552585ddc9fe9b75fa3e9"),
                commitHashes("at a1371a8, then 412a8966436c3cd725a552585ddc9fe9b75fa3e9 (working tree)"));
        assertEquals(List.of("2198bec"), commitHashes("overhead-20261129-071707-at-2198bec.txt"));
        assertEquals(List.of(), commitHashes("20261125 1234567 deadbeef effaced facade 1e-12 0x1f2e3d4c Abc1234 a1371a8x ab12"));
    }

    @Test
    void findsResultsPathsAndRelativeLinksAsTheDocsWriteThem() {
        assertEquals(List.of("npb-harness/results/bench-B-warm/", "../npb-harness/results/README.md", "results/README-class-C.md",
                "mpirun-ext/results/chaos-20261130-043107.txt"),
                resultsPaths("results `npb-harness/results/bench-B-warm/`, report [README](../npb-harness/results/README.md); "
                        + "see results/README-class-C.md. And `mpirun-ext/results/chaos-20261130-043107.txt`."));
        assertEquals(List.of("docs/design.md", "../ansible/README.md#testing"),
                relativeLinks("[design](docs/design.md), [tests](../ansible/README.md#testing), [web](https://example.org/x), "
                        + "[here](#quick-start), [mail](mailto:a@b.c)"));
    }

    /** README.md and every page under docs/. */
    static List<Path> docs() {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> pages = Files.list(ROOT.resolve("docs"))) {
            pages.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs;
    }

    /**
     * {@link #docs}, every module's README ({@code *}{@code /README.md}, one level down) and every
     * README under ansible/. The results-file check leaves the modules' READMEs out: they name
     * what a command writes with placeholders ({@code results/bench-DATE-TIME/}).
     */
    static List<Path> docsAndModuleReadmes() {
        List<Path> docs = new ArrayList<>(docs());
        try (Stream<Path> modules = Files.list(ROOT)) {
            modules.map(module -> module.resolve("README.md")).filter(Files::isRegularFile).sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Path ansible = ROOT.resolve("ansible");
        try (Stream<Path> files = Files.walk(ansible)) {
            files.filter(p -> p.getFileName().toString().equals("README.md"))
                    .filter(p -> !ansible.relativize(p).toString().matches("(?:.*/)?(?:\\..*|target)/.*"))
                    .sorted().forEach(docs::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return docs.stream().distinct().toList();
    }

    /** Every results path in {@code text}, without a sentence's full stop after it. */
    static List<String> resultsPaths(String text) {
        return found(RESULTS_PATH, 1, text).stream().map(path -> path.replaceAll("\\.+$", "")).toList();
    }

    /** Every word of {@code text} that looks like a commit hash. */
    static List<String> commitHashes(String text) {
        return found(HEX_WORD, 0, text).stream()
                .filter(word -> word.chars().anyMatch(Character::isDigit) && word.chars().anyMatch(c -> c >= 'a' && c <= 'f'))
                .toList();
    }

    /** Every link target of {@code text} that is a path: no scheme ({@code https:}, {@code mailto:}), not an anchor alone. */
    static List<String> relativeLinks(String text) {
        return found(LINK, 1, text).stream()
                .filter(target -> !target.startsWith("#") && !target.matches("[A-Za-z][A-Za-z0-9+.-]*:.*"))
                .toList();
    }

    /** The text of {@code group} of every match of {@code pattern} in {@code text}, in order. */
    private static List<String> found(Pattern pattern, int group, String text) {
        List<String> found = new ArrayList<>();
        Matcher m = pattern.matcher(text);
        while (m.find()) {
            found.add(m.group(group));
        }
        return found;
    }

    /**
     * Whether {@code path}, named in {@code doc}, exists: a path starting with {@code ../} from the
     * doc's directory (a link), any other from the repository's root; a bare {@code results/...}
     * in any module. A {@code *} in the last part must match at least one file.
     */
    private static boolean resultsPathExists(Path doc, String path) {
        List<Path> bases = new ArrayList<>();
        if (path.startsWith("../")) {
            bases.add(doc.getParent());
        } else if (path.startsWith("results/")) {
            bases.add(ROOT);
            try (Stream<Path> modules = Files.list(ROOT)) {
                modules.filter(Files::isDirectory).forEach(bases::add);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        } else {
            bases.add(ROOT);
        }
        return bases.stream().anyMatch(base -> exists(base.resolve(path).normalize()));
    }

    private static boolean exists(Path path) {
        String name = path.getFileName().toString();
        if (!name.contains("*")) {
            return Files.exists(path);
        }
        if (!Files.isDirectory(path.getParent())) {
            return false;
        }
        try (DirectoryStream<Path> matches = Files.newDirectoryStream(path.getParent(), name)) {
            return matches.iterator().hasNext();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
