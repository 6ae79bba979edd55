package org.mpirunft.daemon.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The environment assignments PRRTE's ssh launcher puts in front of the node daemon's command
 * when it has a prefix (mpirun run by its absolute path, {@code --prefix}, a PMIx prefix) or a
 * library path to pass ({@code plm_ssh_pass_libpath}). A remote shell would run them; here they
 * are read into prted's environment instead. Only the shapes that {@code setup_launch} in PRRTE's
 * {@code src/mca/plm/ssh/plm_ssh_module.c} writes are accepted (the same in the PRRTE 3.0 that
 * Open MPI 5.0.7 bundles and in PRRTE 5; the strings are in Debian's libprrte.so.5.0.0), each
 * between two {@code ;}:
 * <pre>
 * NAME=VALUE;export NAME                                      bash, zsh (and an unknown shell)
 * setenv NAME VALUE                                           csh, tcsh
 * if ( $?LD_LIBRARY_PATH == 1 ) set PRTE_have_llp
 * if ( $?LD_LIBRARY_PATH == 0 ) setenv LD_LIBRARY_PATH VALUE
 * if ( $?PRTE_have_llp == 1 ) setenv LD_LIBRARY_PATH VALUE:$LD_LIBRARY_PATH
 * </pre>
 * NAME is PRTE_PREFIX or PMIX_PREFIX (one absolute directory) or LD_LIBRARY_PATH or
 * DYLD_LIBRARY_PATH (absolute directories, possibly followed by {@code :$NAME}, the variable's
 * value before). PRRTE sets no other variable there, so any other is refused, as is anything a
 * shell alone could do: PRRTE's form for a remote sh or ksh, which sources {@code .profile} in a
 * subshell, and {@code cd DIR} ({@code plm_ssh_chdir}).
 */
final class PrrtePrefix {
    private static final Set<String> PREFIXES = Set.of("PRTE_PREFIX", "PMIX_PREFIX");
    private static final Set<String> LIBRARY_PATHS = Set.of("LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH");
    /** csh's shell variable (not exported) that says LD_LIBRARY_PATH was set before. */
    private static final String HAVE_LLP = "PRTE_have_llp";
    private static final String BLANK = "[ \\t]+";
    private static final Pattern ASSIGNMENT = Pattern.compile("(\\w+)=(.*)");
    private static final Pattern EXPORT = Pattern.compile("export" + BLANK + "(\\w+)");
    private static final Pattern SETENV = Pattern.compile("setenv" + BLANK + "(\\w+)" + BLANK + "(\\S+)");
    private static final Pattern SET_HAVE_LLP = Pattern.compile("set" + BLANK + HAVE_LLP);
    private static final Pattern CSH_IF = Pattern.compile("if" + BLANK + "\\(" + BLANK + "\\$\\?(LD_LIBRARY_PATH|" + HAVE_LLP + ")"
            + BLANK + "==" + BLANK + "([01])" + BLANK + "\\)" + BLANK + "(.+)");
    /** What a shell would read as more than a directory name, ':' being the list separator. */
    private static final String NOT_IN_DIRECTORY = NodeDaemonCommand.SHELL_SPECIALS + " \t'\"\\:";

    private final Map<String, String> inherited;
    private final Map<String, String> assigned = new LinkedHashMap<>();
    private boolean haveLlp;

    private PrrtePrefix(Map<String, String> inherited) {
        this.inherited = inherited;
    }

    /**
     * @param commands  what came before prted's command, cut at each {@code ;}
     * @param inherited the environment prted would inherit, against which {@code $NAME} expands
     * @return the variables to set for prted, expanded
     * @throws IllegalArgumentException naming the first command or value that is refused
     */
    static Map<String, String> environment(List<String> commands, Map<String, String> inherited) {
        PrrtePrefix prefix = new PrrtePrefix(inherited);
        for (int i = 0; i < commands.size(); i++) {
            String command = trimBlanks(commands.get(i));
            Matcher m;
            if ((m = ASSIGNMENT.matcher(command)).matches()) {
                String name = m.group(1);
                String value = prefix.value(name, m.group(2));
                // Unexported, the assignment would not reach prted; PRRTE always exports next.
                String next = i + 1 < commands.size() ? trimBlanks(commands.get(i + 1)) : "";
                Matcher export = EXPORT.matcher(next);
                if (!export.matches() || !export.group(1).equals(name)) {
                    throw new IllegalArgumentException("'" + command + "' must be followed by 'export " + name + "', not '" + next + "'");
                }
                prefix.assigned.put(name, value);
                i++;
            } else if ((m = SETENV.matcher(command)).matches()) {
                prefix.assigned.put(m.group(1), prefix.value(m.group(1), m.group(2)));
            } else if ((m = CSH_IF.matcher(command)).matches()) {
                prefix.cshIf(command, m.group(1), m.group(2).equals("1"), m.group(3));
            } else {
                throw notPrrtes(command);
            }
        }
        return prefix.assigned;
    }

    /** {@code if ( $?VARIABLE == 0|1 ) BODY}: BODY is checked whether or not it applies. */
    private void cshIf(String command, String variable, boolean whenSet, String body) {
        boolean set = variable.equals(HAVE_LLP) ? haveLlp : assigned.containsKey(variable) || inherited.containsKey(variable);
        Matcher setenv = SETENV.matcher(body);
        if (SET_HAVE_LLP.matcher(body).matches()) {
            haveLlp |= set == whenSet;
        } else if (setenv.matches() && setenv.group(1).equals("LD_LIBRARY_PATH")) {
            String value = value(setenv.group(1), setenv.group(2));
            if (set == whenSet) {
                assigned.put(setenv.group(1), value);
            }
        } else {
            throw notPrrtes(command);
        }
    }

    /** The value a shell would give {@code name} from {@code raw}, once {@code raw} is checked. */
    private String value(String name, String raw) {
        if (PREFIXES.contains(name)) {
            requireDirectory(name, raw);
            return raw;
        }
        if (!LIBRARY_PATHS.contains(name)) {
            throw new IllegalArgumentException("PRRTE's prefix may set only PRTE_PREFIX, PMIX_PREFIX, LD_LIBRARY_PATH and "
                    + "DYLD_LIBRARY_PATH for the node daemon, not " + name);
        }
        String own = ":$" + name;
        boolean extendsOwn = raw.endsWith(own);
        String directories = extendsOwn ? raw.substring(0, raw.length() - own.length()) : raw;
        for (String directory : directories.split(":", -1)) {
            requireDirectory(name, directory);
        }
        String before = extendsOwn ? assigned.getOrDefault(name, inherited.getOrDefault(name, "")) : "";
        // A shell leaves "dir:" when the variable was unset or empty, and to the dynamic loader
        // that empty entry is the working directory. PRRTE means only to prepend, so it is left out.
        return before.isEmpty() ? directories : directories + ":" + before;
    }

    private static void requireDirectory(String name, String directory) {
        boolean plain = directory.chars().noneMatch(c -> NOT_IN_DIRECTORY.indexOf(c) >= 0);
        if (!directory.startsWith("/") || !plain) {
            throw new IllegalArgumentException((LIBRARY_PATHS.contains(name)
                    ? name + " may hold only absolute directories and its own value ($" + name + ")"
                    : name + " must be an absolute directory") + ", not '" + directory + "'");
        }
    }

    private static IllegalArgumentException notPrrtes(String command) {
        return new IllegalArgumentException("only PRRTE's environment assignments may come before its node daemon, not '" + command + "'");
    }

    private static String trimBlanks(String command) {
        return command.replaceAll("^[ \\t]+|[ \\t]+\\z", "");
    }
}
