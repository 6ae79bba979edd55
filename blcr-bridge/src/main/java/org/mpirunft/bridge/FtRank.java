package org.mpirunft.bridge;

import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.internal.RankRuntime;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.ulfm.OmpiEnvironment;

/**
 * A fault-tolerant MPI rank: what a program adopts in place of {@code MPI.Init} and its main
 * loop. It checkpoints registered state at safe points between iterations and, when a rank
 * dies or a pause is ordered, rolls the survivors back in place and starts only the lost ranks
 * again, on spares. See the module README for a complete example.
 *
 * <pre>{@code
 * try (FtRank ft = FtRank.init(args)) {
 *     ft.state().register("x", x).register("r", r);
 *     ft.run(0, iterations, (world, it) -> step(world, x, r));
 *     report(ft.world(), x);
 * }
 * }</pre>
 */
public final class FtRank implements AutoCloseable {
    private final RankRuntime runtime;

    private FtRank(RankRuntime runtime) {
        this.runtime = runtime;
    }

    /** Initializes MPI and the rank runtime with settings from the environment. */
    public static FtRank init(String[] args) throws MPIException {
        return init(args, FtConfig.fromEnvironment());
    }

    public static FtRank init(String[] args, FtConfig config) throws MPIException {
        return init(args, config, RankListener.NONE);
    }

    /**
     * As {@link #init(String[], FtConfig)}, telling {@code listener} what the library does as it
     * happens (part writes, state transfers, a warm spare's release). It is registered before the
     * library starts, because an idle warm spare waits inside this call and ends inside it too.
     */
    public static FtRank init(String[] args, FtConfig config, RankListener listener) throws MPIException {
        // One line per log record, so a job's merged output stays readable and grep-able.
        if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
            System.setProperty("java.util.logging.SimpleFormatter.format", "[mpirun-ft] %4$s: %5$s%6$s%n");
        }
        OmpiEnvironment.applyDefaults();
        Thread joinBound = RankRuntime.boundReplacementJoin();
        try {
            if (RankRuntime.needsThreadMultiple(config)) {
                MPI.InitThread(args, MPI.THREAD_MULTIPLE);
            } else {
                MPI.Init(args);
            }
            return new FtRank(new RankRuntime(config, listener));
        } finally {
            if (joinBound != null) {
                joinBound.interrupt();
            }
        }
    }

    /**
     * The state to checkpoint. Register every array the loop changes, once, before
     * {@link #run}; a rollback restores them in place, into the same array objects.
     */
    public RankState state() {
        return runtime.state();
    }

    /**
     * Runs iterations {@code first} to {@code end - 1}. Before each is a safe point, where
     * checkpoints are taken and where a rollback resumes. Returns when every rank has finished
     * every iteration.
     */
    public void run(long first, long end, Iteration body) {
        runtime.run(first, end, body);
    }

    /** The current world communicator. It is replaced by a recovery, so fetch it, don't keep it. */
    public Intracomm world() {
        return runtime.world();
    }

    /**
     * This rank's number. A replacement takes the number of the rank it replaces; only a job
     * that shrinks ({@code when-no-spare: shrink}) renumbers its survivors, in their old order.
     */
    public int rank() {
        return runtime.rank();
    }

    /** True in a process started to replace a lost rank. */
    public boolean isReplacement() {
        return runtime.isReplacement();
    }

    /**
     * The rank counts this program can run on, for a job that shrinks when no spare is left
     * ({@code when-no-spare: shrink}): the job goes on with the largest accepted count the
     * survivors make up, and the survivors beyond it leave the world and wait for its end.
     * Every rank must give the same answer. By default any count.
     *
     * <pre>{@code ft.acceptRanks(n -> Integer.bitCount(n) == 1); // powers of two}</pre>
     */
    public FtRank acceptRanks(java.util.function.IntPredicate ranks) {
        runtime.acceptRanks(ranks);
        return this;
    }

    public String job() {
        return runtime.job();
    }

    public List<RecoveryReport> recoveries() {
        return runtime.recoveries();
    }

    /** This rank's checkpoint counters now. */
    public CheckpointStats checkpointStats() {
        return runtime.checkpointStats();
    }

    /** Finalizes MPI, bounded: a hang in MPI_Finalize after a recovery does not hang the job. */
    @Override
    public void close() {
        runtime.close();
    }
}
