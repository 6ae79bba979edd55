package org.mpirunft.launcher.cli;

import java.io.PrintStream;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;
import org.apache.commons.cli.CommandLine;

/**
 * {@code -v} shows mpirun-ft's INFO logs (the mpirun command line, decisions), {@code -vv} also
 * its FINE ones; warnings always show. {@code --debug} adds stack traces to errors. Logs go to
 * the command's stderr, one line each, starting with {@code mpirun-ft}.
 */
public final class Verbosity {
    /** Held, so the level set on it is not lost with a collected logger. */
    private static final Logger PROJECT = Logger.getLogger("org.mpirunft");

    int verbose;
    boolean debug;

    /** Takes {@code -v} (counted) and {@code --debug} from a parsed command line. */
    void read(CommandLine line) {
        verbose += LauncherOptions.count(line, LauncherOptions.VERBOSE);
        debug |= line.hasOption(LauncherOptions.DEBUG);
    }

    void apply(PrintStream err) {
        Logger root = Logger.getLogger("");
        for (Handler handler : root.getHandlers()) {
            root.removeHandler(handler);
        }
        StreamHandler handler = new StreamHandler(err, new OneLine()) {
            @Override
            public synchronized void publish(LogRecord record) {
                super.publish(record);
                flush();
            }
        };
        handler.setLevel(Level.ALL);
        root.addHandler(handler);
        root.setLevel(Level.WARNING);
        Level level = verbose >= 2 ? Level.FINE : verbose == 1 ? Level.INFO : Level.WARNING;
        PROJECT.setLevel(level);
    }

    /** {@code mpirun-ft WARNING: job ft-1: ...}; messages already name the job or rank. */
    private static final class OneLine extends Formatter {
        @Override
        public String format(LogRecord record) {
            String message = formatMessage(record);
            if (message.startsWith("mpirun-ft: ")) {
                message = message.substring("mpirun-ft: ".length());
            }
            return "mpirun-ft " + record.getLevel().getName() + ": " + message + System.lineSeparator();
        }
    }
}
