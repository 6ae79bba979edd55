package org.mpirunft.scheduler.cli;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.mpirunft.common.Durations;
import org.mpirunft.common.JobOwner;
import org.mpirunft.membership.JoinFailedException;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.LoadSource;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.cli.NodeOptions;
import org.mpirunft.membership.cli.Verbosity;
import org.mpirunft.scheduler.JobTableFileException;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerUpdate;
import org.mpirunft.scheduler.SchedulerService;
import org.mpirunft.scheduler.config.ConfigException;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.config.SchedulerConfigReader;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code scheduler-node}: a node daemon reduced to membership and scheduler, for the
 * integration tests and the benchmark. Joins the group, runs a {@link SchedulerService}, prints
 * every membership event and every command it is handed as a JSON {@link NodeLine}, and takes
 * requests on stdin, one per line, until stdin closes or {@code exit}:
 *
 * <pre>
 * register JOB LAUNCHER NODE,NODE...   registerJob
 * committed JOB EPOCH COST_MS          epochCommitted, serving order EPOCH
 * completed JOB FAILURE                recoveryCompleted
 * finished JOB                         jobFinished
 * checkpoint JOB                       checkpointNow
 * table                                print this node's job table
 * exit
 * </pre>
 *
 * A request is answered with an OK (or ERROR) line once it took effect. With
 * {@code --auto-commit} the node plays the launcher too: it commits each checkpoint it is
 * ordered at once.
 */
@Command(name = "scheduler-node", mixinStandardHelpOptions = true,
        description = "Run a node daemon's membership and scheduler; print events and commands as JSON lines.")
public final class SchedulerNode implements Callable<Integer> {
    public static final String SECRET_ENV = "MPIRUNFT_CLUSTER_SECRET";
    public static final int EXIT_OK = 0;
    public static final int EXIT_FAILURE = 1;
    public static final int EXIT_USAGE = 2;
    public static final int EXIT_CONFIG = 3;
    public static final int EXIT_JOB_TABLE = 4;
    public static final int EXIT_JOIN_FAILED = 5;

    @Spec
    CommandSpec spec;

    @Mixin
    NodeOptions node = new NodeOptions();

    @Option(names = "--config", required = true, description = "The cluster's YAML config file (the scheduler's part).")
    Path configFile;

    @Option(names = "--tick", description = "Scheduler tick period, e.g. 100ms (default: a tenth of the interval, at most 1s).")
    String tick;

    @Option(names = "--auto-commit", description = "Commit every checkpoint this node is ordered at once, as a launcher would.")
    boolean autoCommit;

    @Option(names = "-v", description = "Log the scheduler's and membership's INFO on stderr (-vv: FINE).")
    boolean[] verbose = new boolean[0];

    private PrintWriter out;
    private SchedulerService scheduler;

    public static void main(String[] args) {
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        System.exit(commandLine(out, err).execute(args));
    }

    /** The command line with its output streams, so tests can capture them. */
    public static CommandLine commandLine(PrintWriter out, PrintWriter err) {
        CommandLine cl = new CommandLine(new SchedulerNode());
        cl.setOut(out);
        cl.setErr(err);
        cl.setExitCodeExceptionMapper(t -> switch (t) {
            case CommandLine.ParameterException e -> EXIT_USAGE;
            case ConfigException e -> EXIT_CONFIG;
            case JobTableFileException e -> EXIT_JOB_TABLE;
            case JoinFailedException e -> EXIT_JOIN_FAILED;
            default -> EXIT_FAILURE;
        });
        cl.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("scheduler-node: " + e.getMessage());
            if (commandLine.getCommand() instanceof SchedulerNode node && node.verbose.length > 0) {
                e.printStackTrace(commandLine.getErr());
            }
            return commandLine.getExitCodeExceptionMapper().getExitCode(e);
        });
        return cl;
    }

    @Override
    public Integer call() throws Exception {
        configureLogging();
        out = spec.commandLine().getOut();
        SchedulerConfig config = SchedulerConfigReader.read(configFile);
        String secret = System.getenv(SECRET_ENV);
        if (secret == null || secret.isBlank()) {
            throw new IllegalArgumentException("no cluster secret: set " + SECRET_ENV);
        }
        // The node's copy of the group's log, next to the table the leaders write.
        MembershipConfig membershipConfig = node.config(secret.strip().getBytes(StandardCharsets.UTF_8))
                .logDirectory(config.sharedStorage().resolve("group-logs").resolve(node.name())).build();
        NodeMetadata metadata = node.metadata(node.port() + 1000);
        Membership membership = Membership.create(membershipConfig, metadata, LoadSource.system(() -> 0));
        SchedulerService.Builder builder = SchedulerService.builder(config, membership);
        if (tick != null) {
            builder.tickPeriod(Durations.parsePositive("--tick", tick));
        }
        scheduler = builder.build();
        scheduler.addTransitionListener(this::onTransition);
        membership.addListener(this::onEvent);
        Thread hook = new Thread(() -> {
            scheduler.close();
            membership.close();
        }, "scheduler-node-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            scheduler.start(); // before joining: a bad persisted table stops the node here
            membership.start();
            emit(NodeLine.status("STARTED", node.name(), scheduler.leader(), membership.memberId()));
            commandLoop(System.in);
        } finally {
            scheduler.close();
            membership.close();
            emit(NodeLine.status("STOPPED", node.name(), "", null));
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // Already shutting down: the hook runs, and close is idempotent.
            }
        }
        return EXIT_OK;
    }

    /** Like a launcher: prints the transitions of the jobs this node launches that a launcher acts on. */
    private void onTransition(JobTransition transition) {
        if (!transition.after().launcher().equals(node.name())) {
            return;
        }
        NodeLine.command(node.name(), scheduler.leader(), transition).ifPresent(this::emit);
        if (autoCommit && transition.update() instanceof SchedulerUpdate.CheckpointOrdered c) {
            scheduler.epochCommitted(c.job(), c.epoch(), c.epoch(), Duration.ofMillis(5));
        }
    }

    private void onEvent(MembershipEvent event) {
        String about = switch (event) {
            case MembershipEvent.NodeJoined e -> "NODE_JOINED " + e.member().name();
            case MembershipEvent.NodeSuspected e -> "NODE_SUSPECTED " + e.member().name();
            case MembershipEvent.NodeFailed e -> "NODE_FAILED " + e.member().name();
            case MembershipEvent.NodeLeft e -> "NODE_LEFT " + e.member().name();
            case MembershipEvent.PartitionHealed e -> "PARTITION_HEALED";
            case MembershipEvent.Expelled e -> "EXPELLED " + e.reason();
        };
        emit(NodeLine.membership(node.name(), event.view().coordinator().map(m -> m.name()).orElse(""), about, event.view().names()));
    }

    private void commandLoop(InputStream in) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
            String[] words = line.strip().split("\\s+");
            if (words[0].isEmpty()) {
                continue;
            }
            if (words[0].equals("exit")) {
                return;
            }
            try {
                request(line.strip(), words);
            } catch (RuntimeException e) {
                emit(NodeLine.status("ERROR", node.name(), scheduler.leader(), line.strip() + ": " + e.getMessage()));
            }
        }
    }

    private void request(String line, String[] words) {
        CompletableFuture<?> done = switch (words[0]) {
            case "register" -> scheduler.registerJob(words[1], words[2], Arrays.asList(words[3].split(",")), List.of(), RecoveryMode.PAUSE,
                    Optional.empty(), 10, JobOwner.ROOT);
            case "committed" -> scheduler.epochCommitted(words[1], Long.parseLong(words[2]), Long.parseLong(words[2]), Duration.ofMillis(Long.parseLong(words[3])));
            case "completed" -> scheduler.recoveryCompleted(words[1], words[2], List.of(), 0, 0, null);
            case "finished" -> scheduler.jobFinished(words[1]);
            case "checkpoint" -> scheduler.checkpointNow(words[1]);
            case "table" -> {
                emit(NodeLine.table(node.name(), scheduler.leader(), List.copyOf(scheduler.table().jobs()), scheduler.decisionNanos()));
                yield null;
            }
            default -> throw new IllegalArgumentException("unknown request (register, committed, completed, finished, checkpoint, table, exit)");
        };
        if (done != null) {
            done.whenComplete((result, failure) -> emit(failure == null
                    ? NodeLine.answer(node.name(), scheduler.leader(), line, result instanceof Long epoch ? epoch : null)
                    : NodeLine.status("ERROR", node.name(), scheduler.leader(), line + ": " + failure.getMessage())));
        }
    }

    private synchronized void emit(NodeLine line) {
        out.println(line.toJson());
        out.flush();
    }

    private void configureLogging() {
        Verbosity.logToStderr();
        Level ours = verbose.length >= 2 ? Level.FINE : verbose.length == 1 ? Level.INFO : Level.WARNING;
        Logger.getLogger("org.mpirunft").setLevel(ours);
        Logger.getLogger("org.jgroups").setLevel(Level.WARNING);
    }
}
