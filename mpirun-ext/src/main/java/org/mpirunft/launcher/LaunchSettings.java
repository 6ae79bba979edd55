package org.mpirunft.launcher;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.storage.PartCodec;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.Names;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.scheduler.RecoveryMode;

/**
 * Everything one {@code mpirun-ft} run needs, merged from its options, its config file and the
 * environment. Immutable; validated when built, with messages that name the setting. Above 500
 * lines because each of its thirty-odd settings has a field, an accessor and a builder setter;
 * split, the settings would lose the one place that validates them together.
 */
public final class LaunchSettings {
    /** The default control socket of the local daemon, unless {@code MPIRUN_FT_SOCKET} says otherwise. */
    public static final Path DEFAULT_SOCKET = Paths.get("/run/mpirun-ft/ftd.sock");
    /** The rank library's default shared checkpoint directory. */
    public static final Path DEFAULT_CHECKPOINT_DIR = Paths.get("/shared/mpirun-ft");
    public static final String EVENT_LOG_NAME = "events.jsonl";

    private final String job;
    private final Optional<Integer> ranks;
    private final List<HostSlot> hosts;
    private final HostPlan.Mapping mapping;
    private final int spares;
    private final boolean sparesExplicit;
    private final Optional<CheckpointSchedule> checkpointSchedule;
    private final RecoveryMode recovery;
    private final Path checkpointDir;
    private final Optional<Path> localCheckpointDir;
    private final Path socket;
    private final Path eventLog;
    private final String mpirun;
    private final Optional<String> launchAgent;
    private final Duration exitTimeout;
    private final Duration decisionTimeout;
    private final String jobInterface;
    private final Duration stopGrace;
    private final int maxRestarts;
    private final WarmSpareMode warmSpares;
    private final boolean aotCache;
    private final StorageLevels checkpointLevels;
    private final int checkpointFullEvery;
    private final int checkpointXorSet;
    private final PartCodec checkpointCompression;
    private final List<String> passThrough;
    private final List<String> mpirunUnset;
    private final String slurmJob;
    private final boolean hostsAreAllocation;
    private final List<String> program;

    private LaunchSettings(Builder b) {
        this.job = b.job != null ? b.job : generatedJobId();
        this.ranks = Optional.ofNullable(b.ranks);
        this.hosts = List.copyOf(b.hosts);
        this.mapping = b.mapping;
        this.spares = b.spares;
        this.sparesExplicit = b.sparesExplicit;
        this.checkpointSchedule = b.checkpointSchedule;
        this.recovery = b.recovery;
        // One directory per user in the site's checkpoint storage, shared and node-local (PrivateDirectories).
        this.checkpointDir = PrivateDirectories.ofUser(b.checkpointDir.toAbsolutePath().normalize(), b.user);
        this.localCheckpointDir = Optional.ofNullable(b.localCheckpointDir).map(dir -> PrivateDirectories.ofUser(dir, b.user));
        this.socket = b.socket;
        this.eventLog = b.eventLog != null ? b.eventLog : checkpointDir.resolve(job).resolve(EVENT_LOG_NAME);
        this.mpirun = b.mpirun;
        this.launchAgent = Optional.ofNullable(b.launchAgent);
        this.exitTimeout = b.exitTimeout;
        this.decisionTimeout = b.decisionTimeout;
        this.jobInterface = b.jobInterface;
        this.stopGrace = b.stopGrace;
        this.maxRestarts = b.maxRestarts;
        this.warmSpares = b.warmSpares;
        this.aotCache = b.aotCache;
        this.checkpointLevels = b.checkpointLevels;
        this.checkpointFullEvery = b.checkpointFullEvery;
        this.checkpointXorSet = b.checkpointXorSet;
        this.checkpointCompression = b.checkpointCompression;
        this.passThrough = List.copyOf(b.passThrough);
        this.mpirunUnset = List.copyOf(b.mpirunUnset);
        this.slurmJob = b.slurmJob;
        this.hostsAreAllocation = b.hostsAreAllocation;
        this.program = List.copyOf(b.program);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The job's id: checkpoints live under it, and a launch with the same id resumes them. */
    public String job() {
        return job;
    }

    /** {@code -np}, if given; otherwise every compute slot. */
    public Optional<Integer> ranks() {
        return ranks;
    }

    /** From {@code --host}/{@code --hostfile}, in order; empty to take the daemons' compute nodes. */
    public List<HostSlot> hosts() {
        return hosts;
    }

    public HostPlan.Mapping mapping() {
        return mapping;
    }

    public int spares() {
        return spares;
    }

    /** Whether the user asked for the spares (then too few is an error, not a warning). */
    public boolean sparesExplicit() {
        return sparesExplicit;
    }

    /** The job's checkpoint schedule; empty: the cluster's default ({@code checkpoint.interval} of the scheduler's config). */
    public Optional<CheckpointSchedule> checkpointSchedule() {
        return checkpointSchedule;
    }

    public RecoveryMode recovery() {
        return recovery;
    }

    /**
     * The user's directory in shared checkpoint storage, {@code CHECKPOINT_DIR/USER}: the rank
     * library's {@code MPIRUN_FT_SHARED_DIR}; the job's files are in its {@code JOB} directory.
     */
    public Path checkpointDir() {
        return checkpointDir;
    }

    /** The user's directory in node-local checkpoint storage ({@code MPIRUN_FT_LOCAL_DIR}), if not the rank library's default. */
    public Optional<Path> localCheckpointDir() {
        return localCheckpointDir;
    }

    public Path socket() {
        return socket;
    }

    public Path eventLog() {
        return eventLog;
    }

    public String mpirun() {
        return mpirun;
    }

    public Optional<String> launchAgent() {
        return launchAgent;
    }

    /** How long mpirun may take to exit once the program has finished, before it is killed. */
    public Duration exitTimeout() {
        return exitTimeout;
    }

    /**
     * How long mpirun-ft waits for the scheduler's decision (a relaunch, a stop) once mpirun ended
     * before the program did; without one the job ends as ranks lost.
     */
    public Duration decisionTimeout() {
        return decisionTimeout;
    }

    /** Transparent mode's job network interface, on every node: the one Open MPI may use. */
    public String jobInterface() {
        return jobInterface;
    }

    /** Between SIGTERM and SIGKILL when mpirun-ft stops a job. */
    public Duration stopGrace() {
        return stopGrace;
    }

    /** Whole-job relaunches allowed (restart mode, and fallbacks from pause). */
    public int maxRestarts() {
        return maxRestarts;
    }

    /** Whether a job that recovers in place launches a warm spare rank on each spare slot ({@code --warm-spares}). */
    public WarmSpareMode warmSpares() {
        return warmSpares;
    }

    /**
     * Whether this launch would get warm spares if its program used the rank library: it
     * recovers in place and {@code --warm-spares} is {@code auto}. Only then does that question
     * matter ({@link RankLibraryProgram}).
     */
    public boolean warmSparesAskProgram(HostPlan plan) {
        return warmSpares == WarmSpareMode.AUTO && recovery == RecoveryMode.PAUSE && !plan.spareSlots().isEmpty();
    }

    /**
     * How many warm spare ranks a launch on {@code plan} gets: one per spare slot when the job
     * recovers in place and {@code --warm-spares} is on, or {@code auto} and the program is known
     * to use the rank library (which keeps them out of the program's world); none for a restart
     * mode, whose ranks do not survive a failure.
     */
    public int warmSpareRanks(HostPlan plan, boolean programUsesRankLibrary) {
        boolean warm = switch (warmSpares) {
            case ON -> true;
            case AUTO -> programUsesRankLibrary;
            case OFF -> false;
        };
        return warm && recovery == RecoveryMode.PAUSE ? plan.spareSlots().size() : 0;
    }

    /** Where the ranks' checkpoint parts go beyond their memory ({@code --checkpoint-levels}): the rank library's {@code MPIRUN_FT_CHECKPOINT_LEVELS}. */
    public StorageLevels checkpointLevels() {
        return checkpointLevels;
    }

    /** How the ranks store parts on disk ({@code --checkpoint-compression}): the rank library's {@code MPIRUN_FT_CHECKPOINT_COMPRESSION}. */
    public PartCodec checkpointCompression() {
        return checkpointCompression;
    }

    /** A full disk part every N-th epoch, deltas in between ({@code --checkpoint-full-every}): the rank library's {@code MPIRUN_FT_CHECKPOINT_FULL_EVERY}. */
    public int checkpointFullEvery() {
        return checkpointFullEvery;
    }

    /** The xor level's set size in nodes ({@code --checkpoint-xor-set}): the rank library's {@code MPIRUN_FT_CHECKPOINT_XOR_SET}. */
    public int checkpointXorSet() {
        return checkpointXorSet;
    }

    /**
     * Whether Java ranks start from an AOT cache of the program ({@code --aot-cache},
     * {@link RankAotCache}); off as well when the user sets {@code JDK_JAVA_OPTIONS} for the ranks.
     */
    public boolean aotCache() {
        return aotCache;
    }

    /** Variables of mpirun-ft's environment that mpirun must not get: a Slurm allocation's ({@link SlurmAllocation}). */
    public List<String> mpirunUnset() {
        return mpirunUnset;
    }

    /**
     * The Slurm allocation the job runs in when its hosts are the allocation's, else empty: the
     * daemons start Open MPI's node daemons as steps of it, so Slurm tracks and accounts them.
     */
    public String slurmJob() {
        return slurmJob;
    }

    /** Whether {@link #hosts()} are a batch allocation's: the spares come from them only. */
    public boolean hostsAreAllocation() {
        return hostsAreAllocation;
    }

    public List<String> passThrough() {
        return passThrough;
    }

    public List<String> program() {
        return program;
    }

    /** {@code ft-20250101-120000-1234}: sortable, unique per launcher process, a valid checkpoint job id. */
    static String generatedJobId() {
        return "ft-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
                + ProcessHandle.current().pid() % 100_000;
    }

    public static final class Builder {
        private String job;
        private Integer ranks;
        private List<HostSlot> hosts = List.of();
        private HostPlan.Mapping mapping = HostPlan.Mapping.BY_SLOT;
        private int spares = 1;
        private boolean sparesExplicit;
        private Optional<CheckpointSchedule> checkpointSchedule = Optional.empty();
        private RecoveryMode recovery = RecoveryMode.PAUSE;
        private Path checkpointDir = DEFAULT_CHECKPOINT_DIR;
        private Path localCheckpointDir;
        private String user = PrivateDirectories.currentUser();
        private Path socket = DEFAULT_SOCKET;
        private Path eventLog;
        private String mpirun = "mpirun";
        private String launchAgent;
        private Duration exitTimeout = Duration.ofSeconds(60);
        private Duration decisionTimeout = Duration.ofSeconds(30);
        private String jobInterface = "job0";
        private Duration stopGrace = Duration.ofSeconds(10);
        private int maxRestarts = 10;
        private WarmSpareMode warmSpares = WarmSpareMode.AUTO;
        private boolean aotCache = true;
        private StorageLevels checkpointLevels = StorageLevels.DEFAULT;
        private int checkpointFullEvery = 1;
        private int checkpointXorSet = FtConfig.DEFAULT_XOR_SET;
        private PartCodec checkpointCompression = PartCodec.NONE;
        private final List<String> passThrough = new ArrayList<>();
        private final List<String> mpirunUnset = new ArrayList<>();
        private String slurmJob = "";
        private boolean hostsAreAllocation;
        private final List<String> program = new ArrayList<>();

        private Builder() {
        }

        public Builder job(String job) {
            this.job = job;
            return this;
        }

        public Builder ranks(Integer ranks) {
            this.ranks = ranks;
            return this;
        }

        public Builder hosts(List<HostSlot> hosts) {
            this.hosts = List.copyOf(hosts);
            return this;
        }

        public Builder mapping(HostPlan.Mapping mapping) {
            this.mapping = mapping;
            return this;
        }

        public Builder spares(int spares, boolean explicit) {
            this.spares = spares;
            this.sparesExplicit = explicit;
            return this;
        }

        public Builder checkpointSchedule(CheckpointSchedule schedule) {
            this.checkpointSchedule = Optional.of(schedule);
            return this;
        }

        public Builder recovery(RecoveryMode mode) {
            this.recovery = mode;
            return this;
        }

        public Builder checkpointDir(Path directory) {
            this.checkpointDir = directory;
            return this;
        }

        public Builder localCheckpointDir(Path directory) {
            this.localCheckpointDir = directory;
            return this;
        }

        /** Whose directories the job's files go to; the user running mpirun-ft unless said otherwise. */
        public Builder user(String name) {
            this.user = name;
            return this;
        }

        public Builder socket(Path socket) {
            this.socket = socket;
            return this;
        }

        public Builder eventLog(Path file) {
            this.eventLog = file;
            return this;
        }

        public Builder mpirun(String executable) {
            this.mpirun = executable;
            return this;
        }

        public Builder launchAgent(String agent) {
            this.launchAgent = agent;
            return this;
        }

        public Builder exitTimeout(Duration timeout) {
            this.exitTimeout = timeout;
            return this;
        }

        public Builder jobInterface(String iface) {
            this.jobInterface = iface;
            return this;
        }

        public Builder decisionTimeout(Duration timeout) {
            this.decisionTimeout = timeout;
            return this;
        }

        public Builder stopGrace(Duration grace) {
            this.stopGrace = grace;
            return this;
        }

        public Builder warmSpares(WarmSpareMode mode) {
            this.warmSpares = java.util.Objects.requireNonNull(mode, "warmSpares");
            return this;
        }

        public Builder checkpointCompression(PartCodec codec) {
            this.checkpointCompression = codec;
            return this;
        }

        public Builder checkpointXorSet(int nodes) {
            this.checkpointXorSet = nodes;
            return this;
        }

        public Builder checkpointFullEvery(int epochs) {
            this.checkpointFullEvery = epochs;
            return this;
        }

        public Builder checkpointLevels(StorageLevels levels) {
            this.checkpointLevels = levels;
            return this;
        }

        public Builder aotCache(boolean on) {
            this.aotCache = on;
            return this;
        }

        public Builder maxRestarts(int restarts) {
            this.maxRestarts = restarts;
            return this;
        }

        public Builder hostsAreAllocation(boolean allocation) {
            this.hostsAreAllocation = allocation;
            return this;
        }

        public Builder slurmJob(String slurmJob) {
            this.slurmJob = java.util.Objects.requireNonNull(slurmJob, "slurmJob");
            return this;
        }

        public Builder mpirunUnset(List<String> names) {
            this.mpirunUnset.clear();
            this.mpirunUnset.addAll(names);
            return this;
        }

        public Builder passThrough(List<String> options) {
            this.passThrough.clear();
            this.passThrough.addAll(options);
            return this;
        }

        public Builder program(List<String> programAndArguments) {
            this.program.clear();
            this.program.addAll(programAndArguments);
            return this;
        }

        public LaunchSettings build() {
            if (job != null) {
                Names.requireName("--job", job);
            }
            if (ranks != null && ranks < 1) {
                throw new BadSettingException("-np", "must be at least 1, got " + ranks);
            }
            if (spares < 0) {
                throw new BadSettingException("--spares", "must be 0 or more, got " + spares);
            }
            if (maxRestarts < 0) {
                throw new BadSettingException("--max-restarts", "must be 0 or more, got " + maxRestarts);
            }
            positive("--exit-timeout", exitTimeout);
            positive("--decision-timeout", decisionTimeout);
            positive("--stop-grace", stopGrace);
            if (mpirun == null || mpirun.isBlank()) {
                throw new BadSettingException("--mpirun", "must name Open MPI's mpirun");
            }
            if (launchAgent != null && launchAgent.isBlank()) {
                throw new BadSettingException("--agent", "must not be empty");
            }
            if (program.isEmpty()) {
                throw new BadSettingException("PROGRAM", "no program to run: give it after the options, as to mpirun");
            }
            return new LaunchSettings(this);
        }

        private static void positive(String setting, Duration duration) {
            if (duration == null || duration.isZero() || duration.isNegative()) {
                throw new BadSettingException(setting, "must be greater than 0, got " + duration);
            }
        }

        private static void absolute(String setting, Path path) {
            if (path == null || !path.isAbsolute()) {
                throw new BadSettingException(setting, "must be an absolute path (it names a directory on every node), got '" + path + "'");
            }
        }
    }
}
