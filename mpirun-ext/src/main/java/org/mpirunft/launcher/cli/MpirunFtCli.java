package org.mpirunft.launcher.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.mpirunft.launcher.ExitCode;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The {@code mpirun-ft} command's entry point ({@code bin/mpirun-ft} runs {@link #main}).
 *
 * <p>{@code mpirun-ft status} and {@code mpirun-ft checkpoint JOB} are subcommands; anything
 * else runs a job, as mpirun would: {@link ArgumentSplitter} sends mpirun-ft's own options to
 * picocli and the rest through to mpirun. A first word {@code status} or {@code checkpoint}
 * (after mpirun-ft's own options only) picks the subcommand; to run a program of that name, put
 * a mpirun option or {@code --} before it, or give its path.
 *
 * <p>Errors are one line on stderr, {@code mpirun-ft: ...}, with a distinct exit code
 * ({@link ExitCode#of}); {@code --debug} adds the stack trace.
 */
public final class MpirunFtCli {
    private static final Set<String> SUBCOMMANDS = Set.of("status", "checkpoint", "help");

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
        CommandLine cl = commandLine(run, context);
        List<String> all = Arrays.asList(args);
        if (!all.isEmpty() && SUBCOMMANDS.contains(all.getFirst())) {
            return cl.execute(args);
        }
        ArgumentSplitter.Split split = ArgumentSplitter.split(all, name -> {
            OptionSpec option = cl.getCommandSpec().findOption(name);
            if (option == null || !name.startsWith("-")) {
                return null;
            }
            return option.arity().max() == 0 ? 0 : 1;
        });
        if (split.mpirun().isEmpty() && !split.program().isEmpty() && SUBCOMMANDS.contains(split.program().getFirst())) {
            List<String> rearranged = new ArrayList<>(split.own());
            rearranged.addAll(split.program());
            return cl.execute(rearranged.toArray(String[]::new));
        }
        run.passThrough = split.mpirun();
        run.program = split.program();
        return cl.execute(split.own().toArray(String[]::new));
    }

    /** The command line for {@code run}, writing to {@code context}'s streams; tests call {@link #execute}. */
    static CommandLine commandLine(RunCommand run, CliContext context) {
        CommandLine cl = new CommandLine(run);
        // As with mpirun, an option given again wins, so a wrapper script may append overrides.
        cl.setOverwrittenOptionsAllowed(true);
        cl.setOut(new java.io.PrintWriter(context.out(), true));
        cl.setErr(new java.io.PrintWriter(context.err(), true));
        cl.setExitCodeExceptionMapper(e -> e instanceof CommandLine.ParameterException ? ExitCode.USAGE.code() : ExitCode.of(e).code());
        cl.setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("mpirun-ft: " + firstLine(e.getMessage()) + " (see mpirun-ft --help)");
            if (run.verbosity.debug) {
                e.printStackTrace(e.getCommandLine().getErr());
            }
            return ExitCode.USAGE.code();
        });
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("mpirun-ft: " + firstLine(e.getMessage() != null ? e.getMessage() : e.toString()));
            if (run.verbosity.debug) {
                e.printStackTrace(commandLine.getErr());
            }
            return ExitCode.of(e).code();
        });
        return cl;
    }

    private static String firstLine(String message) {
        return message == null ? "" : message.lines().findFirst().orElse("");
    }
}
