package org.mpirunft.launcher.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.DefaultParser;
import org.apache.commons.cli.Option;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;

/**
 * mpirun-ft's own options, the one place that names them: their spellings, whether they take a
 * value, and their help. {@link ArgumentSplitter} asks {@link #arity} which words of a command
 * line are mpirun-ft's; the rest go to mpirun.
 *
 * <p>Commons CLI, the one exception to picocli, the project's command-line library (ftd, npb, the
 * test programs), and for start-up only: these options are parsed on every job launch, before
 * mpirun starts, so their cost is part of mpirun-ft's fixed cost. picocli's jar is Java 5 bytecode
 * (class file version 49), which the JDK 25 AOT cache of {@code bin/mpirun-ft} skips as an old
 * class, so each launch parsed its 176 classes and built its model by reflection: {@code mpirun-ft
 * --version} took 280-380 ms with the cache, 104-125 ms with Commons CLI (Java 8 bytecode, cached,
 * no annotations read). No parsing behaviour of either library is needed: mpirun's options are
 * told from mpirun-ft's by {@link ArgumentSplitter} and passed through unparsed, and the help is
 * written here; only the usage errors of a malformed option ({@code Missing argument for option:
 * job}) are Commons CLI's text. The reason stands while picocli ships Java 5 class files.
 */
final class LauncherOptions {
    /** Options every command takes. */
    static final Option VERBOSE = flag("v", null, "More log output on stderr (-v, -vv). mpirun's own -v is --verbose.");
    static final Option DEBUG = flag(null, "debug", "Print the stack trace of an error.");
    static final Option HELP = flag("h", "help", "Show this help and exit.");
    static final Option VERSION = flag("V", "version", "Print the version and exit.");
    static final Option SOCKET = valued(null, "socket", "PATH",
            "The local daemon's control socket (default: the config files', else $MPIRUN_FT_SOCKET, else /run/mpirun-ft/ftd.sock).");
    static final Option CONFIG = valued(null, "config", "FILE",
            "YAML file of settings, keyed by these options' long names (spares, recovery, ...); it wins over the site config "
                    + "($MPIRUN_FT_CONFIG, else /etc/mpirun-ft/mpirun-ft.yaml), options win over both.");
    static final Option CHECKPOINT_DIR = valued(null, "checkpoint-dir", "DIR",
            "Shared checkpoint storage, the same path on every node (default: /shared/mpirun-ft).");

    /** Options of a job run. */
    static final Option SPARES = valued(null, "spares", "N", "Spare nodes to keep for replacements (default: 1 if there is one).");
    static final Option WARM_SPARES = valued(null, "warm-spares", "auto|on|off",
            "on: launch one idle rank per spare slot, which takes a lost rank's place without a new process;"
                    + " auto: only for a program known to use the rank library, which keeps them out of its MPI_COMM_WORLD"
                    + " (default); off: start replacements when needed. Only with --recovery pause.");
    static final Option AOT_CACHE = valued(null, "aot-cache", "on|off",
            "on: Java ranks start from an AOT cache of the program, which its first finished run makes (default);"
                    + " off: plain JVM starts. Off too when JDK_JAVA_OPTIONS is set for the ranks.");
    static final Option CHECKPOINT_INTERVAL = valued(null, "checkpoint-interval", "DURATION|auto|'every N'",
            "The scheduler orders checkpoints every DURATION (30s, 10m, 1h), every N iterations ('every 10'), or at Daly's"
                    + " interval from the measured cost ('auto') (default: the cluster's checkpoint.interval).");
    static final Option CHECKPOINT_LEVELS = valued(null, "checkpoint-levels", "LEVEL[:N],...",
            "Where checkpoint parts go beyond the ranks' memory, each level every N-th epoch: partner (a rank on the next"
                    + " node keeps a copy in memory), xor (parity over sets of nodes, in memory), local, shared; for example partner,shared:8 (default: local,shared).");
    static final Option CHECKPOINT_FULL_EVERY = valued(null, "checkpoint-full-every", "N",
            "Incremental checkpoints on disk: a full part every N-th epoch, in between only the blocks that changed since the"
                    + " epoch before (default: 1, every part full).");
    static final Option CHECKPOINT_XOR_SET = valued(null, "checkpoint-xor-set", "N",
            "With the xor level: parity over sets of about N nodes, each rank keeping about 1/(N-1) of a part in memory"
                    + " (default: 8; at least 3).");
    static final Option CHECKPOINT_COMPRESSION = valued(null, "checkpoint-compression", "none|zstd",
            "How checkpoint parts are stored on disk: as they are (default), or compressed with Zstandard.");
    static final Option RECOVERY = valued(null, "recovery", "pause|restart|full-restart|transparent",
            "pause: roll back in place, replace lost ranks (default); restart: relaunch the whole job;"
                    + " full-restart: restart the job's node daemons too, then relaunch; transparent: as --transparent.");
    static final Option TRANSPARENT = flag(null, "transparent",
            "For programs that do not use mpirun-ft's rank library (any MPI program, C or Java): the whole job is checkpointed"
                    + " with CRIU, and restored on a failure, a spare in the lost node's place. Same as --recovery transparent.");
    static final Option JOB_INTERFACE = valued(null, "job-interface", "NAME",
            "Transparent mode: the network interface that holds each node's floating address, the only one the job may use"
                    + " (default: job0).");
    static final Option JOB = valued(null, "job", "ID", "Job id; a launch with an existing job's id resumes its checkpoints.");
    static final Option EVENT_LOG = valued(null, "event-log", "FILE", "JSON-lines event log (default: CHECKPOINT_DIR/JOB/events.jsonl).");
    static final Option LOCAL_CHECKPOINT_DIR = valued(null, "local-checkpoint-dir", "DIR",
            "Node-local checkpoint storage (default: the rank library's).");
    static final Option MPIRUN = valued(null, "mpirun", "PATH", "Open MPI's mpirun (default: $MPI_HOME/bin/mpirun, else mpirun on the PATH).");
    static final Option AGENT = valued(null, "agent", "COMMAND", "Open MPI's launch agent (default: this installation's 'ftd agent').");
    static final Option EXIT_TIMEOUT = valued(null, "exit-timeout", "DURATION", "Bound on mpirun's exit once the program finished (default: 60s).");
    static final Option DECISION_TIMEOUT = valued(null, "decision-timeout", "DURATION",
            "Bound on the wait for the scheduler's decision once mpirun ended before the program did (default: 30s).");
    static final Option STOP_GRACE = valued(null, "stop-grace", "DURATION", "Between SIGTERM and SIGKILL when stopping mpirun (default: 10s).");
    static final Option MAX_RESTARTS = valued(null, "max-restarts", "N", "Whole-job relaunches allowed (default: 10).");
    /** mpirun's spellings of its rank count, host list and host file: mpirun-ft reads them to plan hosts and spares. */
    static final List<Option> RANKS = List.of(valued("np", "np", "N", "Ranks to run (as mpirun; default: every compute slot)."),
            valued("n", null, "N", "Same as -np."), valued("c", null, "N", "Same as -np."));
    static final List<Option> HOST = List.of(valued("H", "host", "HOST[:SLOTS],...", "Hosts to run on (as mpirun)."));
    static final List<Option> HOSTFILE = List.of(valued(null, "hostfile", "FILE", "Hosts to run on (as mpirun)."),
            valued(null, "machinefile", "FILE", "Same as --hostfile."), valued(null, "default-hostfile", "FILE", "Same as --hostfile."));

    /** Options of {@code status}. */
    static final Option JSON = flag(null, "json", "Print the daemon's status report as JSON.");
    static final Option REASON = valued(null, "reason", "TEXT", "Why, for the job's event log.");

    static final String SYNOPSIS = """
            Usage: mpirun-ft [OPTIONS] [MPIRUN OPTIONS] PROGRAM [ARGS...]
               or: mpirun-ft status [--json]
               or: mpirun-ft checkpoint JOB

            Runs an MPI job through Open MPI's mpirun, fault-tolerant. When a node
            fails, the ranks roll back in place and a spare takes the lost ranks
            (--recovery pause), or the whole job is launched again from its last
            checkpoint (--recovery restart), the runtime's daemons restarted too
            (--recovery full-restart). A program that does not use the rank
            library runs with --transparent: CRIU checkpoints and restores the
            whole job.

            Options that mpirun-ft does not know go to mpirun unchanged. One that
            takes a value and is not an Open MPI 5 option must be written
            --option=value.
            """;

    static final String COMMANDS = """
            Commands:
              status      Show the daemons, and each job's ranks per node, last epoch and recoveries.
              checkpoint  Order a checkpoint of JOB now, outside its interval.
              help        Show this help, or a command's (help status).
            """;

    static final String EXIT_CODES = """
            Exit codes:
              0     the job succeeded
              N     the program's own exit status, as mpirun reports it
              64    bad option or value
              65    bad config file
              67    job not known to the daemon
              69    no daemon answers
              72    mpirun or the launch agent not found
              73    checkpoint directory not writable
              75    no spare left
              76    the daemon refused
              80    ranks lost and not recovered
              81    job stopped by the scheduler
              130   interrupted
            """;

    private LauncherOptions() {
    }

    /** The options of a job run: the common ones and the run's own. */
    static Options run() {
        Options options = new Options();
        RANKS.forEach(options::addOption);
        HOST.forEach(options::addOption);
        HOSTFILE.forEach(options::addOption);
        List.of(SPARES, WARM_SPARES, AOT_CACHE, CHECKPOINT_INTERVAL, CHECKPOINT_LEVELS, CHECKPOINT_FULL_EVERY, CHECKPOINT_XOR_SET,
                CHECKPOINT_COMPRESSION, RECOVERY, TRANSPARENT, JOB, MAX_RESTARTS, EVENT_LOG, LOCAL_CHECKPOINT_DIR, MPIRUN, AGENT, EXIT_TIMEOUT,
                DECISION_TIMEOUT, STOP_GRACE, JOB_INTERFACE).forEach(options::addOption);
        common().getOptions().forEach(options::addOption);
        return options;
    }

    /** What the site config usually sets: help lists them after the user's options. */
    private static final List<Option> SITE = List.of(SOCKET, CHECKPOINT_DIR, LOCAL_CHECKPOINT_DIR, MPIRUN, AGENT, EVENT_LOG, EXIT_TIMEOUT,
            DECISION_TIMEOUT, STOP_GRACE, JOB_INTERFACE);
    /** Help, version and logging: listed last. */
    private static final List<Option> GENERAL = List.of(VERBOSE, DEBUG, HELP, VERSION);

    static Options status() {
        return common().addOption(JSON);
    }

    static Options checkpoint() {
        return common();
    }

    static Options migrate() {
        return common().addOption(REASON);
    }

    private static Options common() {
        Options options = new Options();
        List.of(VERBOSE, DEBUG, HELP, VERSION, SOCKET, CONFIG, CHECKPOINT_DIR).forEach(options::addOption);
        return options;
    }

    /**
     * The number of values of {@code word} if it is one of {@code options}, spelled exactly
     * ({@code -np}, {@code --np}, {@code --spares}); else empty. ({@link ArgumentSplitter} takes
     * {@code -vv} for mpirun-ft's own.)
     */
    static Optional<Integer> arity(Options options, String word) {
        Option option = null;
        if (word.startsWith("--")) {
            String name = word.substring(2);
            option = options.getOptions().stream().filter(o -> name.equals(o.getLongOpt())).findFirst().orElse(null);
        } else if (word.startsWith("-")) {
            String name = word.substring(1);
            option = options.getOptions().stream().filter(o -> name.equals(o.getOpt())).findFirst().orElse(null);
        }
        return Optional.ofNullable(option).map(o -> o.hasArg() ? 1 : 0);
    }

    /**
     * Parses {@code args} against {@code options}: exact spellings only (no abbreviations, which
     * would take an abbreviated mpirun option for one of mpirun-ft's), {@code --option=value}
     * accepted; words that are not options stay in {@link CommandLine#getArgList}.
     */
    static CommandLine parse(Options options, List<String> args) throws ParseException {
        return DefaultParser.builder().setAllowPartialMatching(false).get().parse(options, args.toArray(String[]::new));
    }

    /** The value of the last occurrence of any of {@code spellings}: as with mpirun, an option given again wins. */
    static String last(CommandLine line, List<Option> spellings) {
        List<String> values = all(line, spellings);
        return values.isEmpty() ? null : values.getLast();
    }

    static String last(CommandLine line, Option option) {
        return last(line, List.of(option));
    }

    /** The value of every occurrence of any of {@code spellings}, in order (null for a flag). */
    static List<String> all(CommandLine line, List<Option> spellings) {
        List<String> values = new ArrayList<>();
        for (Option given : line.getOptions()) {
            if (spellings.stream().anyMatch(s -> s.getKey().equals(given.getKey()))) {
                values.add(given.getValue());
            }
        }
        return values;
    }

    /** How many times {@code -v} was given ({@code -vv} is two). */
    static int count(CommandLine line, Option option) {
        return all(line, List.of(option)).size();
    }

    /** Help for {@code options}, after {@code heading}; with the commands and exit codes for the main command. */
    static void printHelp(PrintStream out, String heading, Options options, boolean main) {
        out.println(heading);
        List<Option> site = options.getOptions().stream().filter(SITE::contains).toList();
        List<Option> general = options.getOptions().stream().filter(GENERAL::contains).toList();
        List<Option> users = options.getOptions().stream().filter(o -> !site.contains(o) && !general.contains(o)).toList();
        printOptions(out, "Options:", users);
        printOptions(out, "Site options (the site config, " + CliContext.SITE_CONFIG + ", usually sets them):", site);
        printOptions(out, "General options:", general);
        if (main) {
            out.println();
            out.print(COMMANDS);
            out.println();
            out.print(EXIT_CODES);
        }
    }

    private static void printOptions(PrintStream out, String title, List<Option> options) {
        if (options.isEmpty()) {
            return;
        }
        out.println(title);
        for (Option option : options) {
            List<String> spellings = new ArrayList<>();
            if (option.getOpt() != null) {
                spellings.add("-" + option.getOpt());
            }
            if (option.getLongOpt() != null) {
                spellings.add("--" + option.getLongOpt());
            }
            StringBuilder names = new StringBuilder("  ").append(String.join(", ", spellings));
            if (option.hasArg()) {
                names.append(' ').append(option.getArgName());
            }
            out.println(names);
            out.println("        " + option.getDescription());
        }
    }

    private static Option flag(String shortName, String longName, String description) {
        return Option.builder(shortName).longOpt(longName).desc(description).get();
    }

    private static Option valued(String shortName, String longName, String valueName, String description) {
        return Option.builder(shortName).longOpt(longName).hasArg().argName(valueName).desc(description).get();
    }
}
