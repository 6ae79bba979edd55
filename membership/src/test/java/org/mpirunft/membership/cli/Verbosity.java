package org.mpirunft.membership.cli;

import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Option;

/** {@code -v} shows this module's INFO logs, {@code -vv} also JGroups' INFO and this module's DEBUG. Logs go to stderr. */
public final class Verbosity {
    @Option(names = "-v", description = "More log output on stderr (-v, -vv).")
    boolean[] verbose = new boolean[0];

    @Option(names = "--debug", description = "Print stack traces of errors.")
    boolean debug;

    void apply() {
        logToStderr();
        Logger.getLogger("org.mpirunft.membership").setLevel(verbose.length >= 2 ? Level.FINE : verbose.length == 1 ? Level.INFO : Level.WARNING);
        Logger.getLogger("org.jgroups").setLevel(verbose.length >= 2 ? Level.INFO : Level.WARNING);
    }

    /**
     * Logs to stderr, one line each, WARNING and up unless a logger is set lower: stdout is kept
     * for the process's own lines, which the tests read.
     */
    public static void logToStderr() {
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$-7s [%3$s] %5$s%6$s%n");
        }
        Logger root = Logger.getLogger("");
        for (Handler h : root.getHandlers()) {
            root.removeHandler(h);
        }
        ConsoleHandler console = new ConsoleHandler(); // stderr
        console.setLevel(Level.ALL);
        root.addHandler(console);
        root.setLevel(Level.WARNING);
    }
}
