package org.mpirunft.daemon.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Open MPI's node-daemon command as PRRTE's ssh launcher sends it: words meant for a remote
 * shell, some with quotes in them ({@code "env"}, {@code "uri;tcp://..."}). It is split the way
 * that shell would split it, but never run by a shell, and only Open MPI's node daemon from the
 * configured path may be started: anything a shell would interpret (expansion, redirection, a
 * second command) is refused rather than guessed at.
 */
final class NodeDaemonCommand {
    private static final String SHELL_SPECIALS = ";&|<>`$(){}*?[]~!#\n\r";

    private NodeDaemonCommand() {
    }

    /**
     * @return the argv to run, its first element replaced by {@code prted}
     * @throws IllegalArgumentException with a one-line reason when the command is refused
     */
    static List<String> parse(List<String> words, Path prted) {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("empty command");
        }
        List<String> argv = split(String.join(" ", words));
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("empty command");
        }
        String program = argv.getFirst();
        Path asked = Path.of(program);
        boolean allowed = asked.isAbsolute() ? asked.normalize().equals(prted.normalize())
                : program.equals(prted.getFileName().toString());
        if (!allowed) {
            throw new IllegalArgumentException("only Open MPI's node daemon " + prted + " may be launched, not '" + program + "'");
        }
        argv.set(0, prted.toString());
        return argv;
    }

    /** POSIX shell word splitting of plain words, quotes and backslashes; specials refused. */
    static List<String> split(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder word = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                if (end < 0) {
                    throw new IllegalArgumentException("unterminated single quote");
                }
                word.append(line, i + 1, end);
                i = end;
                inWord = true;
            } else if (c == '"') {
                i++;
                for (; i < line.length() && line.charAt(i) != '"'; i++) {
                    char d = line.charAt(i);
                    if (d == '$' || d == '`') {
                        throw new IllegalArgumentException("shell expansion '" + d + "' is not allowed in a launch command");
                    }
                    if (d == '\\' && i + 1 < line.length() && "\"\\$`".indexOf(line.charAt(i + 1)) >= 0) {
                        d = line.charAt(++i);
                    }
                    word.append(d);
                }
                if (i >= line.length()) {
                    throw new IllegalArgumentException("unterminated double quote");
                }
                inWord = true;
            } else if (c == '\\') {
                if (i + 1 >= line.length()) {
                    throw new IllegalArgumentException("trailing backslash");
                }
                word.append(line.charAt(++i));
                inWord = true;
            } else if (c == ' ' || c == '\t') {
                if (inWord) {
                    words.add(word.toString());
                    word.setLength(0);
                    inWord = false;
                }
            } else if (SHELL_SPECIALS.indexOf(c) >= 0) {
                throw new IllegalArgumentException("shell syntax '" + printable(c) + "' is not allowed in a launch command");
            } else {
                word.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(word.toString());
        }
        return words;
    }

    private static String printable(char c) {
        return c == '\n' ? "\\n" : c == '\r' ? "\\r" : String.valueOf(c);
    }
}
