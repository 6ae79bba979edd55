package org.mpirunft.membership.cli;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import org.mpirunft.membership.JoinFailedException;
import org.mpirunft.membership.JoinRefusedException;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code membership}: runs a member of the group from the command line and prints its events
 * and view. The entry point of the member processes that tests and the benchmark start.
 */
@Command(name = "membership", mixinStandardHelpOptions = true,
        description = "Member of the mpirun-ft node daemons' group (JGroups).",
        subcommands = {MemberCommand.class})
public final class MembershipCli {
    /** Exit codes, mapped from exceptions. */
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_JOIN_REFUSED = 3;
    public static final int EXIT_JOIN_FAILED = 4;

    private MembershipCli() {
    }

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(commandLine(out, err).execute(args));
    }

    /** The command line with its output streams, so tests can capture them. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new MembershipCli());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExitCodeExceptionMapper(t -> switch (t) {
            case CommandLine.ParameterException e -> EXIT_USAGE;
            case JoinRefusedException e -> EXIT_JOIN_REFUSED;
            case JoinFailedException e -> EXIT_JOIN_FAILED;
            default -> EXIT_FAILURE;
        });
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            boolean debug = commandLine.getCommand() instanceof MemberCommand m && m.verbosity.debug;
            commandLine.getErr().println("membership: " + e.getMessage());
            if (debug) {
                e.printStackTrace(commandLine.getErr());
            }
            return commandLine.getExitCodeExceptionMapper().getExitCode(e);
        });
        return cl;
    }
}
