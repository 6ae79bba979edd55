package org.mpirunft.launcher;

import java.util.LinkedHashMap;
import java.util.Map;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.storage.PartCodec;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.scheduler.RecoveryMode;

/**
 * The environment the rank library reads ({@link FtConfig}'s {@code MPIRUN_FT_*} variables),
 * exported to every rank. Checkpoint orders and pauses reach the ranks over the rank control
 * channel of their node's daemon, whose socket the daemon gives the node's processes itself; the
 * spare list is the ranks' fallback when no daemon answers. {@code MPIRUN_FT_JOB} also tags the node daemons that the launch
 * agent starts, so mpirun itself gets it too.
 */
public final class RankEnvironment {
    public static final String JOB = FtConfig.environmentName(FtConfig.JOB);
    /** Set in mpirun's own environment only: the ranks mpirun starts on its node reach that node's daemon through it. */
    public static final String RANK_SOCKET = FtConfig.environmentName(FtConfig.RANK_SOCKET);
    /**
     * Set in mpirun's own environment only, inside a Slurm allocation: its job ID, which the launch
     * agent ({@code ftd agent}) passes on so that the node daemons start as steps of it.
     */
    public static final String SLURM_JOB = "MPIRUN_FT_SLURM_JOB";
    public static final String SHARED_DIR = FtConfig.environmentName(FtConfig.SHARED_DIR);
    public static final String LOCAL_DIR = FtConfig.environmentName(FtConfig.LOCAL_DIR);
    public static final String SPARES = FtConfig.environmentName(FtConfig.SPARES);
    public static final String WARM_SPARES = FtConfig.environmentName(FtConfig.WARM_SPARES);
    public static final String CHECKPOINT_LEVELS = FtConfig.environmentName(FtConfig.CHECKPOINT_LEVELS);
    public static final String CHECKPOINT_FULL_EVERY = FtConfig.environmentName(FtConfig.CHECKPOINT_FULL_EVERY);
    public static final String CHECKPOINT_XOR_SET = FtConfig.environmentName(FtConfig.CHECKPOINT_XOR_SET);
    public static final String CHECKPOINT_COMPRESSION = FtConfig.environmentName(FtConfig.CHECKPOINT_COMPRESSION);

    private RankEnvironment() {
    }

    /**
     * In restart mode the ranks get no spares: a failure then ends the job, which mpirun-ft
     * relaunches whole, instead of the ranks repairing it in place. {@code warmSpares} is the
     * launch's count of warm spare ranks ({@link LaunchSettings#warmSpareRanks}).
     */
    public static Map<String, String> of(LaunchSettings settings, HostPlan plan, int warmSpares) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put(JOB, settings.job());
        env.put(SHARED_DIR, settings.checkpointDir().toString());
        settings.localCheckpointDir().ifPresent(dir -> env.put(LOCAL_DIR, dir.toString()));
        if (!settings.checkpointLevels().equals(StorageLevels.DEFAULT)) {
            env.put(CHECKPOINT_LEVELS, settings.checkpointLevels().render());
        }
        if (settings.checkpointCompression() != PartCodec.NONE) {
            env.put(CHECKPOINT_COMPRESSION, settings.checkpointCompression().setting());
        }
        if (settings.checkpointFullEvery() != 1) {
            env.put(CHECKPOINT_FULL_EVERY, Integer.toString(settings.checkpointFullEvery()));
        }
        if (settings.checkpointXorSet() != FtConfig.DEFAULT_XOR_SET) {
            env.put(CHECKPOINT_XOR_SET, Integer.toString(settings.checkpointXorSet()));
        }
        if (settings.recovery() == RecoveryMode.PAUSE && !plan.spareSlots().isEmpty()) {
            env.put(SPARES, String.join(",", plan.spareSlots()));
        }
        if (warmSpares > 0) {
            env.put(WARM_SPARES, Integer.toString(warmSpares));
        }
        return env;
    }
}
