package org.mpirunft.npb;

import mpi.Intracomm;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;

/**
 * The timed loop of NPB's pseudo-applications (BT, LU, SP): {@code steps} time steps through
 * {@link FtRank#run}, the last of which also computes the verification norms into registered
 * state, so that a rollback keeps them.
 *
 * <p>The time leaves the norms out, as NPB's leaves its verification out: NPB stops its timer
 * after the last step and only then computes the norms it checks. Here they must be computed
 * inside the loop to be state, so the loop times them apart and takes them off.
 */
public final class TimeSteps {

    /** Builds the communication a step uses over one iteration's world communicator. */
    @FunctionalInterface
    public interface Comms<C> {
        C over(Intracomm world) throws MPIException;
    }

    /** One time step. */
    @FunctionalInterface
    public interface Step<C> {
        void advance(C comm) throws MPIException;
    }

    /** The verification norms after the last step. */
    @FunctionalInterface
    public interface Norms<C> {
        double[] compute(C comm) throws MPIException;
    }

    private TimeSteps() {
    }

    /**
     * Runs steps 0 to {@code steps - 1}, each over a fresh {@code comms} of its world, and after
     * the last copies the first {@code into.length} values of {@code norms} into {@code into}.
     *
     * @return the seconds the steps took, without the final norms
     */
    public static <C> double run(FtRank ft, int steps, Comms<C> comms, Step<C> step, Norms<C> norms, double[] into) {
        long[] untimed = {0};
        long start = System.nanoTime();
        ft.run(0, steps, (world, it) -> {
            C comm = comms.over(world);
            step.advance(comm);
            if (it == steps - 1) {
                long verify = System.nanoTime();
                System.arraycopy(norms.compute(comm), 0, into, 0, into.length);
                untimed[0] += System.nanoTime() - verify;
            }
            Progress.iterationDone(world, it, steps);
        });
        return (System.nanoTime() - start - untimed[0]) / 1e9;
    }
}
