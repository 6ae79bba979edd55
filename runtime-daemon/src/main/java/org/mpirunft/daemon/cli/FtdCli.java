package org.mpirunft.daemon.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.DaemonException;
import org.mpirunft.daemon.Ftd;
import org.mpirunft.daemon.FtdConfig;
import org.mpirunft.daemon.FtdConfigReader;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.daemon.protocol.ErrorCode;
import org.mpirunft.daemon.protocol.Wire;
import org.mpirunft.common.Names;
import org.mpirunft.membership.JoinRefusedException;
import org.mpirunft.membership.StackFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ftd}: run the node daemon, ask it for its status, or act as Open MPI's launch agent.
 * Errors are one line on stderr with a distinct exit code; {@code --debug} adds the stack trace.
 */
@Command(name = "ftd", mixinStandardHelpOptions = true, version = "ftd 0.1.0",
        description = "The mpirun-ft node daemon and its local client.",
        subcommands = {FtdCli.Run.class, FtdCli.Status.class, FtdCli.Agent.class, FtdCli.KillJob.class, FtdCli.Drain.class,
                FtdCli.Resume.class, FtdCli.Migrate.class, FtdCli.Stack.class})
public final class FtdCli implements Runnable {
    /** Exit codes, one per kind of failure. */
    public enum Exit {
        OK(0), FAILED(1), USAGE(2), CONFIG(3), UNREACHABLE(4), REFUSED(5),
        /**
         * {@code ftd run}: the group did not admit this daemon (refused or never answered its
         * join): most likely its cluster secret or its {@code group.encryption} differs from the
         * other nodes'.
         */
        NOT_ADMITTED(6),
        /** The launch agent fails as ssh does when it cannot reach or run on the host. */
        AGENT_FAILED(255);

        public final int code;

        Exit(int code) {
            this.code = code;
        }
    }

    static final String DEFAULT_SOCKET = "/run/mpirun-ft/ftd.sock";

    @Option(names = "--debug", scope = CommandLine.ScopeType.INHERIT, description = "Print stack traces of errors.")
    boolean debug;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(newCommandLine().execute(args));
    }

    /** The configured command line; tests call {@code setOut}/{@code setErr} to capture output. */
    public static CommandLine newCommandLine() {
        CommandLine line = new CommandLine(new FtdCli());
        line.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            FtdCli root = commandLine.getCommandSpec().root().userObject() instanceof FtdCli cli ? cli : null;
            PrintWriter err = commandLine.getErr();
            err.println("ftd: " + e.getMessage());
            if (root != null && root.debug) {
                e.printStackTrace(err);
            }
            err.flush();
            return exitFor(e).code;
        });
        line.getSubcommands().get("agent").setUnmatchedOptionsArePositionalParams(true).setStopAtPositional(true);
        return line;
    }

    static Exit exitFor(Exception e) {
        return switch (e) {
            case AgentException a -> Exit.AGENT_FAILED;
            case FtdConfigReader.ConfigException c -> Exit.CONFIG;
            case JoinRefusedException r -> Exit.NOT_ADMITTED;
            case DaemonClient.DaemonUnreachableException u -> Exit.UNREACHABLE;
            case DaemonClient.RequestFailedException f when f.code() == ErrorCode.REFUSED -> Exit.REFUSED;
            case DaemonClient.RequestFailedException f when f.code() == ErrorCode.UNREACHABLE -> Exit.UNREACHABLE;
            default -> Exit.FAILED;
        };
    }

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "name a command: run, status, agent, kill-job, drain, resume, migrate or stack");
    }

    static Path socketOf(Path option) {
        if (option != null) {
            return option;
        }
        String fromEnvironment = System.getenv("MPIRUN_FT_SOCKET");
        return Path.of(fromEnvironment == null || fromEnvironment.isBlank() ? DEFAULT_SOCKET : fromEnvironment);
    }

    @Command(name = "run", description = "Run the daemon in the foreground until SIGTERM (which leaves the group gracefully).")
    static final class Run implements Runnable {
        @Option(names = "--config", required = true, description = "The daemon's YAML config file.")
        Path config;

        @Override
        public void run() {
            System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$s %5$s%6$s%n");
            FtdConfig settings = FtdConfigReader.read(config);
            Ftd ftd = Ftd.start(settings);
            CountDownLatch stopped = new CountDownLatch(1);
            AtomicBoolean closed = new AtomicBoolean();
            AtomicBoolean restart = new AtomicBoolean();
            Runnable close = () -> {
                if (closed.compareAndSet(false, true)) {
                    ftd.close();
                }
            };
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                close.run();
                stopped.countDown();
            }, "ftd-shutdown"));
            ftd.onRestartRequested(() -> {
                restart.set(true);
                stopped.countDown();
            });
            try {
                stopped.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (restart.get()) {
                close.run();
                startReplacement();
                System.exit(0);
            }
        }

        /**
         * Starts a new daemon with this one's command line, environment and output, once this
         * one has left the group and freed its socket and ports; it outlives this process.
         */
        private static void startReplacement() {
            ProcessHandle.Info self = ProcessHandle.current().info();
            List<String> command = new ArrayList<>();
            command.add(self.command().orElseThrow(() -> new IllegalStateException("cannot read this daemon's command")));
            command.addAll(List.of(self.arguments().orElse(new String[0])));
            try {
                new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .redirectOutput(ProcessBuilder.Redirect.INHERIT).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            } catch (java.io.IOException e) {
                System.err.println("ftd: cannot start the new daemon: " + e.getMessage());
                System.exit(1);
            }
        }
    }

    @Command(name = "status", description = "Print the daemon's view: members, leader, job processes, jobs.")
    static final class Status implements Runnable {
        @CommandLine.Mixin
        DaemonSocket daemon;

        @Option(names = "--json", description = "Print the status report as JSON.")
        boolean json;

        @Override
        public void run() {
            ControlReply.StatusReport report = daemon.client().status();
            if (json) {
                daemon.print(Wire.encode(report));
            } else {
                PrintWriter out = daemon.spec.commandLine().getOut();
                out.print(StatusTable.render(report));
                out.flush();
            }
        }
    }

    @Command(name = "kill-job", description = "Kill a job's processes on the given nodes (every node when none is given).")
    static final class KillJob implements Runnable {
        @CommandLine.Mixin
        DaemonSocket daemon;

        @Parameters(index = "0", description = "The job.")
        String job;

        @Parameters(index = "1..*", description = "Nodes.")
        List<String> nodes = new ArrayList<>();

        @Override
        public void run() {
            daemon.print(daemon.client().killJob(job, nodes));
        }
    }

    /** The {@code --socket} option of the commands that ask the local daemon one thing, and how they print its answer. */
    static final class DaemonSocket {
        @Option(names = "--socket", description = "The daemon's control socket (default: $MPIRUN_FT_SOCKET or " + DEFAULT_SOCKET + ").")
        Path socket;

        @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
        CommandLine.Model.CommandSpec spec;

        DaemonClient client() {
            return new DaemonClient(socketOf(socket));
        }

        void print(String answer) {
            spec.commandLine().getOut().println(answer);
            spec.commandLine().getOut().flush();
        }
    }

    /**
     * Drains a node, as {@code scontrol update nodename=N state=drain} does in Slurm: it gets no
     * new rank, and the scheduler moves the ranks it has to spares at their next safe point.
     */
    @Command(name = "drain", description = "Drain a node: no new ranks there, and its ranks move to spares without a rollback.")
    static final class Drain implements Runnable {
        @CommandLine.Mixin
        DaemonSocket daemon;

        @Option(names = "--reason", description = "Why, for the status and the job's event log.")
        String reason = "";

        @Parameters(index = "0", description = "The node.")
        String node;

        @Override
        public void run() {
            Names.requireName("node", node);
            daemon.print(daemon.client().drain(node, reason));
        }
    }

    /** The daemon's side of {@code mpirun-ft migrate}: one job's ranks off one node, the node not drained. */
    @Command(name = "migrate", description = "Move a job's ranks off a node to spares at their next safe point, without a rollback.")
    static final class Migrate implements Runnable {
        @CommandLine.Mixin
        DaemonSocket daemon;

        @Option(names = "--reason", description = "Why, for the job's event log.")
        String reason = "";

        @Parameters(index = "0", description = "The job.")
        String job;

        @Parameters(index = "1", description = "The node.")
        String node;

        @Override
        public void run() {
            Names.requireName("job", job);
            Names.requireName("node", node);
            daemon.print(daemon.client().migrate(job, node, reason));
        }
    }

    @Command(name = "resume", description = "Put a drained node back in service.")
    static final class Resume implements Runnable {
        @CommandLine.Mixin
        DaemonSocket daemon;

        @Parameters(index = "0", description = "The node.")
        String node;

        @Override
        public void run() {
            Names.requireName("node", node);
            daemon.print(daemon.client().resume(node));
        }
    }

    /**
     * Prints the group's JGroups stack as shipped, comments included, for an operator to copy,
     * tune and name in the daemon's config ({@code group.stack}).
     */
    @Command(name = "stack", description = {"Print the group's JGroups stack as shipped (JGroups XML with $${mpirunft.*} variables).",
            "To tune it: ftd stack > /etc/mpirun-ft/jgroups.xml, edit, and set group.stack: /etc/mpirun-ft/jgroups.xml in ftd.yaml."})
    static final class Stack implements Runnable {
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            spec.commandLine().getOut().print(StackFile.shippedXml());
            spec.commandLine().getOut().flush();
        }
    }

    /**
     * Open MPI's launch agent ({@code --prtemca plm_ssh_agent "ftd agent"}): called as ssh would
     * be, {@code [ssh options] HOST COMMAND...}, it asks the local daemon to have HOST's daemon
     * start the command, which must be Open MPI's node daemon. No ssh between nodes is needed.
     */
    @Command(name = "agent", description = "Open MPI's launch agent: [ssh options] HOST COMMAND...")
    static final class Agent implements Runnable {
        /** The Slurm allocation whose steps the node daemons run in, set by mpirun-ft in mpirun's environment. */
        static final String SLURM_JOB_VARIABLE = "MPIRUN_FT_SLURM_JOB";
        /** ssh options that take a value, which PRRTE might pass through. */
        private static final Set<String> SSH_VALUE_OPTIONS = Set.of("-b", "-c", "-E", "-F", "-i", "-J", "-l", "-o", "-p");

        @Option(names = "--socket", description = "The local daemon's control socket.")
        Path socket;

        @Parameters(arity = "2..*", description = "[ssh options] HOST COMMAND...")
        List<String> words;

        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public void run() {
            int i = 0;
            while (i < words.size() && words.get(i).startsWith("-")) {
                i += SSH_VALUE_OPTIONS.contains(words.get(i)) ? 2 : 1;
            }
            if (i + 1 >= words.size()) {
                throw new CommandLine.ParameterException(spec.commandLine(), "agent: expected HOST COMMAND... after the options");
            }
            // Open MPI may name a host by its full name; nodes are known by their short names.
            String host = words.get(i).split("\\.", 2)[0];
            String job = System.getenv().getOrDefault("MPIRUN_FT_JOB", "");
            // mpirun-ft names the Slurm allocation the job runs in (mpirun itself gets no SLURM_* variable).
            String slurmJob = System.getenv().getOrDefault(SLURM_JOB_VARIABLE, "");
            try {
                new DaemonClient(socketOf(socket)).launch(host, job, words.subList(i + 1, words.size()), slurmJob);
            } catch (DaemonException e) {
                throw new AgentException("cannot launch on " + host + ": " + e.getMessage(), e);
            }
        }
    }

    static final class AgentException extends DaemonException {
        private static final long serialVersionUID = 1L;

        AgentException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
