package org.mpirunft.launcher.cli;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.apache.commons.cli.CommandLine;
import org.mpirunft.bridge.storage.PartCodec;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.Durations;
import org.mpirunft.common.InterfaceNames;
import org.mpirunft.launcher.BadSettingException;
import org.mpirunft.launcher.HostPlanner;
import org.mpirunft.launcher.HostSlot;
import org.mpirunft.launcher.JobOutcome;
import org.mpirunft.launcher.JobOutputClassifier;
import org.mpirunft.launcher.JobSession;
import org.mpirunft.launcher.LaunchAgent;
import org.mpirunft.launcher.LaunchSettings;
import org.mpirunft.launcher.RankAotCache;
import org.mpirunft.launcher.SlurmAllocation;
import org.mpirunft.launcher.WarmSpareMode;
import org.mpirunft.scheduler.RecoveryMode;

/**
 * {@code mpirun-ft [options] PROGRAM [ARGS...]}: runs an MPI job as mpirun would, fault-tolerant.
 * Options mpirun-ft does not declare go to mpirun unchanged ({@link ArgumentSplitter}).
 */
public final class RunCommand implements Callable<Integer> {
    Verbosity verbosity = new Verbosity();
    Path socket;
    Path config;
    Path checkpointDir;
    String spares;
    String warmSpares;
    String aotCache;
    String checkpointLevels;
    String checkpointFullEvery;
    String checkpointXorSet;
    String checkpointCompression;
    String checkpointInterval;
    String recovery;
    String job;
    Path eventLog;
    Path localCheckpointDir;
    String mpirun;
    String agent;
    String exitTimeout;
    String decisionTimeout;
    boolean transparent;
    String jobInterface;
    String stopGrace;
    String maxRestarts;
    String ranks;
    List<String> hosts = new ArrayList<>();
    Path hostfile;

    /** Set by {@link MpirunFtCli} from the split command line. */
    List<String> passThrough = List.of();
    List<String> program = List.of();
    CliContext context;

    /** Takes the options of {@code line}, parsed with {@link LauncherOptions#run}; the last of a repeated option wins. */
    void read(CommandLine line) {
        readCommon(line);
        spares = LauncherOptions.last(line, LauncherOptions.SPARES);
        warmSpares = LauncherOptions.last(line, LauncherOptions.WARM_SPARES);
        aotCache = LauncherOptions.last(line, LauncherOptions.AOT_CACHE);
        checkpointLevels = LauncherOptions.last(line, LauncherOptions.CHECKPOINT_LEVELS);
        checkpointFullEvery = LauncherOptions.last(line, LauncherOptions.CHECKPOINT_FULL_EVERY);
        checkpointXorSet = LauncherOptions.last(line, LauncherOptions.CHECKPOINT_XOR_SET);
        checkpointCompression = LauncherOptions.last(line, LauncherOptions.CHECKPOINT_COMPRESSION);
        checkpointInterval = LauncherOptions.last(line, LauncherOptions.CHECKPOINT_INTERVAL);
        recovery = LauncherOptions.last(line, LauncherOptions.RECOVERY);
        job = LauncherOptions.last(line, LauncherOptions.JOB);
        eventLog = path(LauncherOptions.last(line, LauncherOptions.EVENT_LOG));
        localCheckpointDir = path(LauncherOptions.last(line, LauncherOptions.LOCAL_CHECKPOINT_DIR));
        mpirun = LauncherOptions.last(line, LauncherOptions.MPIRUN);
        agent = LauncherOptions.last(line, LauncherOptions.AGENT);
        exitTimeout = LauncherOptions.last(line, LauncherOptions.EXIT_TIMEOUT);
        decisionTimeout = LauncherOptions.last(line, LauncherOptions.DECISION_TIMEOUT);
        transparent = line.hasOption(LauncherOptions.TRANSPARENT);
        jobInterface = LauncherOptions.last(line, LauncherOptions.JOB_INTERFACE);
        stopGrace = LauncherOptions.last(line, LauncherOptions.STOP_GRACE);
        maxRestarts = LauncherOptions.last(line, LauncherOptions.MAX_RESTARTS);
        ranks = LauncherOptions.last(line, LauncherOptions.RANKS);
        hosts = LauncherOptions.all(line, LauncherOptions.HOST);
        hostfile = path(LauncherOptions.last(line, LauncherOptions.HOSTFILE));
    }

    /** Takes the options every command has: verbosity, the daemon's socket, the config file, the checkpoint directory. */
    void readCommon(CommandLine line) {
        verbosity.read(line);
        // Given before a command or after it: the one after wins.
        socket = path(LauncherOptions.last(line, LauncherOptions.SOCKET), socket);
        config = path(LauncherOptions.last(line, LauncherOptions.CONFIG), config);
        checkpointDir = path(LauncherOptions.last(line, LauncherOptions.CHECKPOINT_DIR), checkpointDir);
    }

    private static Path path(String value) {
        return path(value, null);
    }

    private static Path path(String value, Path otherwise) {
        return value == null ? otherwise : Paths.get(value);
    }

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

    /** The site's config file under the user's {@code --config}; read on each call (a command reads it once). */
    private ConfigFile configFiles() {
        return ConfigFile.layered(context.siteConfig(), Optional.ofNullable(config));
    }

    /** The daemon's control socket: {@code --socket}, the config files', {@code $MPIRUN_FT_SOCKET}, the default. */
    Path socketPath() {
        return socketPath(new Settings(configFiles()));
    }

    private Path socketPath(Settings s) {
        return s.value("--socket", string(socket), Paths::get).orElseGet(() -> Optional.ofNullable(context.env().get("MPIRUN_FT_SOCKET"))
                .filter(v -> !v.isBlank()).map(Paths::get).orElse(LaunchSettings.DEFAULT_SOCKET));
    }

    /** The shared checkpoint directory: {@code --checkpoint-dir}, the config files', the default. */
    Path checkpointDirectory() {
        return new Settings(configFiles()).value("--checkpoint-dir", string(checkpointDir), Paths::get)
                .orElse(LaunchSettings.DEFAULT_CHECKPOINT_DIR);
    }

    LaunchSettings settings() {
        Settings s = new Settings(configFiles());
        LaunchSettings.Builder b = LaunchSettings.builder();
        b.job(job);
        b.ranks(ranks == null ? null : parseCount("-np", ranks));
        Optional<SlurmAllocation> allocation = hosts.isEmpty() && hostfile == null ? SlurmAllocation.of(context.env()) : Optional.empty();
        b.hosts(allocation.map(SlurmAllocation::hosts).orElseGet(this::hostList));
        b.hostsAreAllocation(allocation.isPresent());
        allocation.map(SlurmAllocation::jobId).ifPresent(b::slurmJob);
        // Also with --host: inside an allocation, Open MPI would launch through srun and take Slurm's host list.
        b.mpirunUnset(SlurmAllocation.variables(context.env()));
        b.mapping(HostPlanner.mappingOf(optionValue(passThrough, "--map-by")));
        Optional<Integer> spareCount = s.value("--spares", spares, v -> parseCount("--spares", v));
        b.spares(spareCount.orElse(1), spareCount.isPresent());
        s.value("--warm-spares", warmSpares, v -> WarmSpareMode.parse("--warm-spares", v)).ifPresent(b::warmSpares);
        // The user's own JVM options for the ranks win: mpirun-ft adds none of its own then.
        boolean userJvmOptions = context.env().containsKey(RankAotCache.VARIABLE)
                || exports(passThrough).contains(RankAotCache.VARIABLE);
        s.value("--aot-cache", aotCache, v -> onOff("--aot-cache", v)).ifPresent(b::aotCache);
        if (userJvmOptions) {
            b.aotCache(false);
        }
        s.value("--checkpoint-interval", checkpointInterval, v -> CheckpointSchedule.parse("--checkpoint-interval", v))
                .ifPresent(b::checkpointSchedule);
        s.value("--checkpoint-levels", checkpointLevels, v -> StorageLevels.parse("--checkpoint-levels", v))
                .ifPresent(b::checkpointLevels);
        s.value("--checkpoint-full-every", checkpointFullEvery, v -> parsePositive("--checkpoint-full-every", v))
                .ifPresent(b::checkpointFullEvery);
        s.value("--checkpoint-xor-set", checkpointXorSet, v -> parseAtLeast("--checkpoint-xor-set", v, 3, "3 or more"))
                .ifPresent(b::checkpointXorSet);
        s.value("--checkpoint-compression", checkpointCompression, v -> PartCodec.parse("--checkpoint-compression", v))
                .ifPresent(b::checkpointCompression);
        Optional<RecoveryMode> mode = s.value("--recovery", recovery, v -> recoveryMode("--recovery", v));
        if (transparent) {
            if (recovery != null && mode.isPresent() && mode.get() != RecoveryMode.TRANSPARENT) {
                throw new BadSettingException("--transparent", "contradicts --recovery " + recovery.strip() + "; give one of them");
            }
            mode = Optional.of(RecoveryMode.TRANSPARENT);
        }
        mode.ifPresent(b::recovery);
        s.value("--job-interface", jobInterface, v -> InterfaceNames.requireName("--job-interface", v)).ifPresent(b::jobInterface);
        s.value("--checkpoint-dir", string(checkpointDir), Paths::get).ifPresent(b::checkpointDir);
        s.value("--local-checkpoint-dir", string(localCheckpointDir), Paths::get).ifPresent(b::localCheckpointDir);
        b.socket(socketPath(s));
        s.value("--event-log", string(eventLog), Paths::get).ifPresent(b::eventLog);
        b.mpirun(s.value("--mpirun", mpirun, v -> v).orElseGet(() -> Optional.ofNullable(context.env().get("MPI_HOME"))
                .filter(v -> !v.isBlank()).map(home -> Paths.get(home, "bin", "mpirun").toString()).orElse("mpirun")));
        s.value("--agent", agent, v -> v).ifPresent(b::launchAgent);
        s.value("--exit-timeout", exitTimeout, v -> Durations.parsePositive("--exit-timeout", v)).ifPresent(b::exitTimeout);
        s.value("--decision-timeout", decisionTimeout, v -> Durations.parsePositive("--decision-timeout", v)).ifPresent(b::decisionTimeout);
        s.value("--stop-grace", stopGrace, v -> Durations.parsePositive("--stop-grace", v)).ifPresent(b::stopGrace);
        s.value("--max-restarts", maxRestarts, v -> parseCount("--max-restarts", v))
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
        List<String> values = optionValues(options, option);
        return values.isEmpty() ? Optional.empty() : Optional.of(values.getLast());
    }

    /** The values of every {@code option VALUE} and {@code option=VALUE} among the pass-through options, in order. */
    static List<String> optionValues(List<String> options, String option) {
        List<String> values = new ArrayList<>();
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            if (o.equals(option) && i + 1 < options.size()) {
                values.add(options.get(i + 1));
            } else if (o.startsWith(option + "=")) {
                values.add(o.substring(option.length() + 1));
            }
        }
        return values;
    }

    /** The variables the pass-through options export to the ranks: {@code -x NAME} and {@code -x NAME=VALUE}. */
    static List<String> exports(List<String> options) {
        return optionValues(options, "-x").stream().map(export -> export.split("=", 2)[0]).toList();
    }

    private static RecoveryMode recoveryMode(String setting, String value) {
        try {
            return RecoveryMode.ofWord(value == null ? "" : value.strip().toLowerCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new BadSettingException(setting, "must be 'pause', 'restart', 'full-restart' or 'transparent', got '" + value + "'");
        }
    }

    private static boolean onOff(String setting, String value) {
        return switch (value == null ? "" : value.strip().toLowerCase(java.util.Locale.ROOT)) {
            // A YAML reader of the 1.1 schema reads on/off as booleans.
            case "on", "true" -> true;
            case "off", "false" -> false;
            default -> throw new BadSettingException(setting, "must be 'on' or 'off', got '" + value + "'");
        };
    }

    private static int parseCount(String setting, String value) {
        return parseAtLeast(setting, value, 0, "0 or more");
    }

    private static int parsePositive(String setting, String value) {
        return parseAtLeast(setting, value, 1, "1 or more");
    }

    private static int parseAtLeast(String setting, String value, int least, String words) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= least) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadSettingException(setting, "must be a whole number, " + words + ", got '" + value + "'");
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
