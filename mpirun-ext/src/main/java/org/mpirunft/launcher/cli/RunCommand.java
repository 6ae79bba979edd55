package org.mpirunft.launcher.cli;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.Durations;
import org.mpirunft.launcher.BadSettingException;
import org.mpirunft.launcher.HostPlanner;
import org.mpirunft.launcher.HostSlot;
import org.mpirunft.launcher.JobOutcome;
import org.mpirunft.launcher.JobOutputClassifier;
import org.mpirunft.launcher.JobSession;
import org.mpirunft.launcher.LaunchAgent;
import org.mpirunft.launcher.LaunchSettings;
import org.mpirunft.scheduler.RecoveryMode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * {@code mpirun-ft [options] PROGRAM [ARGS...]}: runs an MPI job as mpirun would, fault-tolerant.
 * Options mpirun-ft does not declare go to mpirun unchanged ({@link ArgumentSplitter}).
 */
@Command(name = "mpirun-ft", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        subcommands = {StatusCommand.class, CheckpointCommand.class, picocli.CommandLine.HelpCommand.class},
        customSynopsis = {"mpirun-ft [OPTIONS] [MPIRUN OPTIONS] PROGRAM [ARGS...]",
                "   or: mpirun-ft status [--json]",
                "   or: mpirun-ft checkpoint JOB"},
        description = {"",
                "Runs an MPI job through Open MPI's mpirun, fault-tolerant. When a node",
                "fails, the ranks roll back in place and a spare takes the lost ranks",
                "(--recovery pause), or the whole job is launched again from its last",
                "checkpoint (--recovery restart), the runtime's daemons restarted too",
                "(--recovery full-restart).",
                "",
                "Options that mpirun-ft does not know go to mpirun unchanged. One that",
                "takes a value and is not an Open MPI 5 option must be written",
                "--option=value.", ""},
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:the job succeeded", "N:the program's own exit status, as mpirun reports it",
                "64:bad option or value", "65:bad config file", "67:job not known to the daemon",
                "69:no daemon answers", "72:mpirun or the launch agent not found", "73:checkpoint directory not writable",
                "75:no spare left", "76:the daemon refused", "80:ranks lost and not recovered",
                "81:job stopped by the scheduler", "130:interrupted"})
public final class RunCommand implements Callable<Integer> {
    @Mixin
    Verbosity verbosity = new Verbosity();

    @Option(names = "--socket", scope = ScopeType.INHERIT, paramLabel = "PATH",
            description = "The local daemon's control socket (default: $MPIRUN_FT_SOCKET, else /run/mpirun-ft/ftd.sock).")
    Path socket;

    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "FILE",
            description = "YAML file of settings, keyed by these options' long names (spares, recovery, ...).")
    Path config;

    @Option(names = "--checkpoint-dir", scope = ScopeType.INHERIT, paramLabel = "DIR",
            description = "Shared checkpoint storage, the same path on every node (default: /shared/mpirun-ft).")
    Path checkpointDir;

    @Option(names = "--spares", paramLabel = "N", description = "Spare nodes to keep for replacements (default: 1 if there is one).")
    Integer spares;

    @Option(names = "--checkpoint-interval", paramLabel = "DURATION|auto|'every N'",
            description = "The scheduler orders checkpoints every DURATION (30s, 10m, 1h), every N iterations ('every 10'),"
                    + " or at Daly's interval from the measured cost ('auto') (default: the cluster's checkpoint.interval).")
    String checkpointInterval;

    @Option(names = "--recovery", paramLabel = "pause|restart|full-restart",
            description = "pause: roll back in place, replace lost ranks (default); restart: relaunch the whole job;"
                    + " full-restart: restart the job's node daemons too, then relaunch.")
    String recovery;

    @Option(names = "--job", paramLabel = "ID", description = "Job id; a launch with an existing job's id resumes its checkpoints.")
    String job;

    @Option(names = "--event-log", paramLabel = "FILE", description = "JSON-lines event log (default: CHECKPOINT_DIR/JOB/events.jsonl).")
    Path eventLog;

    @Option(names = "--local-checkpoint-dir", paramLabel = "DIR", description = "Node-local checkpoint storage (default: the rank library's).")
    Path localCheckpointDir;

    @Option(names = "--mpirun", paramLabel = "PATH", description = "Open MPI's mpirun (default: $MPI_HOME/bin/mpirun, else mpirun on the PATH).")
    String mpirun;

    @Option(names = "--agent", paramLabel = "COMMAND", description = "Open MPI's launch agent (default: this installation's 'ftd agent').")
    String agent;

    @Option(names = "--exit-timeout", paramLabel = "DURATION", description = "Bound on mpirun's exit once the program finished (default: 60s).")
    String exitTimeout;

    @Option(names = "--stop-grace", paramLabel = "DURATION", description = "Between SIGTERM and SIGKILL when stopping mpirun (default: 10s).")
    String stopGrace;

    @Option(names = "--max-restarts", paramLabel = "N", description = "Whole-job relaunches allowed (default: 10).")
    Integer maxRestarts;

    @Option(names = {"-np", "-n", "-c", "--np"}, paramLabel = "N", description = "Ranks to run (as mpirun; default: every compute slot).")
    Integer ranks;

    @Option(names = {"--host", "-H"}, paramLabel = "HOST[:SLOTS],...", description = "Hosts to run on (as mpirun).")
    List<String> hosts = new ArrayList<>();

    @Option(names = {"--hostfile", "--machinefile", "--default-hostfile"}, paramLabel = "FILE", description = "Hosts to run on (as mpirun).")
    Path hostfile;

    /** Set by {@link MpirunFtCli} from the split command line. */
    List<String> passThrough = List.of();
    List<String> program = List.of();
    CliContext context;

    @Override
    public Integer call() {
        verbosity.apply(context.err());
        if (program.isEmpty()) {
            throw new BadSettingException("PROGRAM", "no program to run: give it after the options, as to mpirun (see mpirun-ft --help)");
        }
        LaunchSettings settings = settings();
        String launchAgent = LaunchAgent.resolve(settings.launchAgent(), context.home());
        JobSession session = new JobSession(settings, context.daemons().apply(settings.socket()), launchAgent,
                context.out(), context.err(), context.in(), context.clock(), new JobOutputClassifier());
        JobOutcome outcome = session.run();
        if (!outcome.reason().isEmpty()) {
            context.err().println("mpirun-ft: " + outcome.reason());
        }
        return outcome.exitCode();
    }

    LaunchSettings settings() {
        ConfigFile file = config == null ? ConfigFile.none() : ConfigFile.read(config);
        Settings s = new Settings(file);
        LaunchSettings.Builder b = LaunchSettings.builder();
        b.job(job);
        b.ranks(ranks);
        b.hosts(hostList());
        b.mapping(HostPlanner.mappingOf(optionValue(passThrough, "--map-by")));
        Optional<Integer> spareCount = s.value("--spares", spares == null ? null : spares.toString(), v -> parseCount("--spares", v));
        b.spares(spareCount.orElse(1), spareCount.isPresent());
        s.value("--checkpoint-interval", checkpointInterval, v -> CheckpointSchedule.parse("--checkpoint-interval", v))
                .ifPresent(b::checkpointSchedule);
        s.value("--recovery", recovery, v -> recoveryMode("--recovery", v)).ifPresent(b::recovery);
        s.value("--checkpoint-dir", string(checkpointDir), Paths::get).ifPresent(b::checkpointDir);
        s.value("--local-checkpoint-dir", string(localCheckpointDir), Paths::get).ifPresent(b::localCheckpointDir);
        Optional<Path> socketPath = s.value("--socket", string(socket), Paths::get);
        b.socket(socketPath.orElseGet(() -> Optional.ofNullable(context.env().get("MPIRUN_FT_SOCKET"))
                .filter(v -> !v.isBlank()).map(Paths::get).orElse(LaunchSettings.DEFAULT_SOCKET)));
        s.value("--event-log", string(eventLog), Paths::get).ifPresent(b::eventLog);
        b.mpirun(s.value("--mpirun", mpirun, v -> v).orElseGet(() -> Optional.ofNullable(context.env().get("MPI_HOME"))
                .filter(v -> !v.isBlank()).map(home -> Paths.get(home, "bin", "mpirun").toString()).orElse("mpirun")));
        s.value("--agent", agent, v -> v).ifPresent(b::launchAgent);
        s.value("--exit-timeout", exitTimeout, v -> Durations.parsePositive("--exit-timeout", v)).ifPresent(b::exitTimeout);
        s.value("--stop-grace", stopGrace, v -> Durations.parsePositive("--stop-grace", v)).ifPresent(b::stopGrace);
        s.value("--max-restarts", maxRestarts == null ? null : maxRestarts.toString(), v -> parseCount("--max-restarts", v))
                .ifPresent(b::maxRestarts);
        b.passThrough(passThrough);
        b.program(program);
        return b.build();
    }

    private List<HostSlot> hostList() {
        if (!hosts.isEmpty() && hostfile != null) {
            throw new BadSettingException("--hostfile", "give either --host or --hostfile, not both");
        }
        return hostfile != null ? HostPlanner.readHostfile(hostfile) : HostPlanner.parseHostOption(hosts);
    }

    /** The value of the last {@code option VALUE} or {@code option=VALUE} among the pass-through options. */
    static Optional<String> optionValue(List<String> options, String option) {
        String found = null;
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            if (o.equals(option) && i + 1 < options.size()) {
                found = options.get(i + 1);
            } else if (o.startsWith(option + "=")) {
                found = o.substring(option.length() + 1);
            }
        }
        return Optional.ofNullable(found);
    }

    private static RecoveryMode recoveryMode(String setting, String value) {
        try {
            return RecoveryMode.ofWord(value == null ? "" : value.strip().toLowerCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadSettingException(setting, "must be 'pause', 'restart' or 'full-restart', got '" + value + "'");
        }
    }

    private static int parseCount(String setting, String value) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadSettingException(setting, "must be a whole number, 0 or more, got '" + value + "'");
    }

    private static String string(Path path) {
        return path == null ? null : path.toString();
    }

    /** A setting from the command line if given, else from the config file; a bad file value names the file and key. */
    private record Settings(ConfigFile file) {
        <T> Optional<T> value(String option, String fromCommandLine, Function<String, T> parse) {
            if (fromCommandLine != null) {
                return Optional.of(parse.apply(fromCommandLine));
            }
            return file.value(option.substring(2), parse);
        }
    }
}
