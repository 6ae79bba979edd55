package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Open MPI's node-daemon command as PRRTE's ssh launcher sends it: words meant for a remote
 * shell, some with quotes in them ({@code "env"}, {@code "uri;tcp://..."}), possibly after the
 * environment assignments PRRTE writes in front of it when it has a prefix ({@link PrrtePrefix}).
 * It is split the way that shell would split it, but never run by a shell, and only Open MPI's
 * node daemon from the configured path may be started: anything a shell would interpret
 * (expansion, redirection, a second command) is refused rather than guessed at.
 *
 * @param argv        the node daemon's argv, its first element the configured {@code prted}
 * @param environment the variables PRRTE's prefix sets for it, expanded
 */
record NodeDaemonCommand(List<String> argv, Map<String, String> environment) {
    static final String SHELL_SPECIALS = ";&|<>`$(){}*?[]~!#\n\r";

    NodeDaemonCommand {
        argv = List.copyOf(argv);
        environment = Map.copyOf(environment);
    }

    /**
     * @param inherited the environment the node daemon would inherit, against which the
     *                  prefix's {@code $LD_LIBRARY_PATH} and the like expand
     * @throws IllegalArgumentException with a one-line reason when the command is refused
     */
    static NodeDaemonCommand parse(List<String> words, Path prted, Map<String, String> inherited) {
        if (words.isEmpty()) {
            throw new IllegalArgumentException("empty command");
        }
        List<String> commands = commands(String.join(" ", words));
        List<String> argv = split(commands.getLast());
        if (argv.isEmpty()) {
            throw new IllegalArgumentException(commands.size() > 1 ? "no command after the last ';'" : "empty command");
        }
        requireConfiguredPrted(argv.getFirst(), prted);
        Map<String, String> environment = PrrtePrefix.environment(commands.subList(0, commands.size() - 1), inherited);
        argv.set(0, prted.toString());
        return new NodeDaemonCommand(argv, environment);
    }

    /**
     * Only the configured prted runs: by its file name (prted found on the PATH, PRRTE's
     * default) or by an absolute path to that file. With a prefix, PRRTE names it
     * {@code $PRTE_PREFIX/bin/prted}. That path is accepted when it is the configured file (the
     * same path, or another path to the same file, such as {@code /bin/prted} where /bin links
     * to /usr/bin), never because the prefix points there: PRTE_PREFIX comes with the request,
     * so trusting it would let a request start any file called prted
     * ({@code PRTE_PREFIX=/tmp/x;...;/tmp/x/bin/prted}), and {@code runtime.prted} would no
     * longer decide what runs. Another installation's prted is run by configuring it.
     */
    private static void requireConfiguredPrted(String program, Path prted) {
        Path asked = Path.of(program);
        boolean allowed = asked.isAbsolute() ? sameFile(asked, prted) : program.equals(prted.getFileName().toString());
        if (!allowed) {
            String hint = asked.isAbsolute() && asked.getFileName() != null && asked.getFileName().equals(prted.getFileName())
                    ? " (runtime.prted in ftd's configuration names the one to run)" : "";
            throw new IllegalArgumentException("only Open MPI's node daemon " + prted + " may be launched, not '" + program + "'" + hint);
        }
    }

    private static boolean sameFile(Path asked, Path prted) {
        if (asked.normalize().equals(prted.normalize())) {
            return true;
        }
        try {
            return Files.isSameFile(asked, prted);
        } catch (IOException e) {
            return false; // either is missing or unreadable: not a path to the configured prted
        }
    }

    /** The line cut at each {@code ;} outside quotes, where a shell would end a command. */
    static List<String> commands(String line) {
        List<String> commands = new ArrayList<>();
        int start = 0;
        char quote = 0;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (c == '\\' && quote == '"') {
                    i++;
                }
            } else if (c == '\'' || c == '"') {
                quote = c;
            } else if (c == '\\') {
                i++;
            } else if (c == ';') {
                commands.add(line.substring(start, i));
                start = i + 1;
            }
        }
        commands.add(line.substring(start));
        return commands;
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
