package org.mpirunft.launcher.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.commons.cli.CommandLine;
import org.apache.commons.cli.Options;
import org.apache.commons.cli.ParseException;
import org.mpirunft.launcher.ExitCode;

/**
 * The {@code mpirun-ft} command's entry point ({@code bin/mpirun-ft} runs {@link #main}).
 *
 * <p>{@code mpirun-ft status}, {@code mpirun-ft checkpoint JOB} and {@code mpirun-ft migrate JOB NODE} are subcommands; anything
 * else runs a job, as mpirun would: {@link ArgumentSplitter} sends mpirun-ft's own options
 * ({@link LauncherOptions}) to Commons CLI and the rest through to mpirun. A first word that names a subcommand
 * (after mpirun-ft's own options only) picks the subcommand; to run a program of that name, put
 * a mpirun option or {@code --} before it, or give its path.
 *
 * <p>Errors are one line on stderr, {@code mpirun-ft: ...}, with a distinct exit code
 * ({@link ExitCode#of}); {@code --debug} adds the stack trace.
 */
public final class MpirunFtCli {
    private static final Set<String> SUBCOMMANDS = Set.of("status", "checkpoint", "migrate", "help");

    private MpirunFtCli() {
    }

    /** Set by {@code bin/mpirun-ft} on the run that records the AOT cache's classes: that record's path. */
    static final String AOT_RECORD_PROPERTY = "mpirunft.aotRecord";

    public static void main(String[] args) {
        int code = execute(args, CliContext.system());
        if (code == 0) {
            markAotRecordGood(System.getProperty(AOT_RECORD_PROPERTY));
        }
        System.exit(code);
    }

    /**
     * A job that succeeded loaded the classes a job run needs: its AOT record is worth a cache.
     * The JVM writes the record itself at exit; this only leaves the mark beside it.
     */
    static void markAotRecordGood(String record) {
        if (record == null || record.isBlank()) {
            return;
        }
        try {
            Files.write(Path.of(record + ".ok"), new byte[0]);
        } catch (IOException | RuntimeException e) {
            // No mark, no cache: the next run records again.
        }
    }

    /** Runs one command line against {@code context}; returns the exit code. */
    public static int execute(String[] args, CliContext context) {
        RunCommand run = new RunCommand();
        run.context = context;
        List<String> all = Arrays.asList(args);
        try {
            return dispatch(all, run);
        } catch (ParseException e) {
            context.err().println("mpirun-ft: " + firstLine(e.getMessage()) + " (see mpirun-ft --help)");
            if (run.verbosity.debug || all.contains("--debug")) {
                e.printStackTrace(context.err());
            }
            return ExitCode.USAGE.code();
        } catch (RuntimeException e) {
            context.err().println("mpirun-ft: " + firstLine(e.getMessage() != null ? e.getMessage() : e.toString()));
            if (run.verbosity.debug) {
                e.printStackTrace(context.err());
            }
            return ExitCode.of(e).code();
        }
    }

    private static int dispatch(List<String> all, RunCommand run) throws ParseException {
        if (!all.isEmpty() && SUBCOMMANDS.contains(all.getFirst())) {
            return subcommand(List.of(), all, run);
        }
        Options options = LauncherOptions.run();
        ArgumentSplitter.Split split = ArgumentSplitter.split(all, name -> LauncherOptions.arity(options, name).orElse(null));
        if (split.mpirun().isEmpty() && !split.program().isEmpty() && SUBCOMMANDS.contains(split.program().getFirst())) {
            return subcommand(split.own(), split.program(), run);
        }
        CommandLine line = LauncherOptions.parse(options, split.own());
        run.read(line);
        if (line.hasOption(LauncherOptions.HELP)) {
            LauncherOptions.printHelp(run.context.out(), LauncherOptions.SYNOPSIS, options, true);
            return ExitCode.OK.code();
        }
        if (line.hasOption(LauncherOptions.VERSION)) {
            run.context.out().println(VersionProvider.version());
            return ExitCode.OK.code();
        }
        run.passThrough = split.mpirun();
        run.program = split.program();
        return run.call();
    }

    /** A subcommand's usage text and its options. */
    private record Usage(String synopsis, Options options) {
        /** A subcommand's; empty for any other word. */
        static Optional<Usage> of(String command) {
            return switch (command) {
                case "status" -> Optional.of(new Usage(StatusCommand.SYNOPSIS, LauncherOptions.status()));
                case "checkpoint" -> Optional.of(new Usage(CheckpointCommand.SYNOPSIS, LauncherOptions.checkpoint()));
                case "migrate" -> Optional.of(new Usage(MigrateCommand.SYNOPSIS, LauncherOptions.migrate()));
                default -> Optional.empty();
            };
        }

        void print(PrintStream out) {
            LauncherOptions.printHelp(out, synopsis, options, false);
        }
    }

    /** {@code [OPTIONS] COMMAND [ARGS]}: the options before the command are the run's common ones. */
    private static int subcommand(List<String> before, List<String> command, RunCommand run) throws ParseException {
        run.read(LauncherOptions.parse(LauncherOptions.run(), before));
        String name = command.getFirst();
        List<String> rest = command.subList(1, command.size());
        if (name.equals("help")) { // help [COMMAND]
            if (rest.isEmpty()) {
                LauncherOptions.printHelp(run.context.out(), LauncherOptions.SYNOPSIS, LauncherOptions.run(), true);
            } else {
                Usage.of(rest.getFirst())
                        .orElseThrow(() -> new ParseException("no command '" + rest.getFirst() + "' (commands: status, checkpoint, migrate, help)"))
                        .print(run.context.out());
            }
            return ExitCode.OK.code();
        }
        Usage usage = Usage.of(name).orElseThrow();
        CommandLine line = LauncherOptions.parse(usage.options(), rest);
        run.readCommon(line);
        if (line.hasOption(LauncherOptions.HELP)) {
            usage.print(run.context.out());
            return ExitCode.OK.code();
        }
        List<String> args = line.getArgList();
        if (name.equals("status")) {
            if (!args.isEmpty()) {
                throw new ParseException("status takes no arguments, got '" + String.join(" ", args) + "'");
            }
            return new StatusCommand(run, line.hasOption(LauncherOptions.JSON)).call();
        }
        if (name.equals("migrate")) {
            if (args.size() != 2) {
                throw new ParseException("migrate takes JOB and NODE, got " + (args.isEmpty() ? "none" : "'" + String.join(" ", args) + "'"));
            }
            return new MigrateCommand(run, args.get(0), args.get(1), LauncherOptions.last(line, LauncherOptions.REASON)).call();
        }
        if (args.size() != 1) {
            throw new ParseException("checkpoint takes one JOB, got " + (args.isEmpty() ? "none" : "'" + String.join(" ", args) + "'"));
        }
        return new CheckpointCommand(run, args.getFirst()).call();
    }

    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }
}
