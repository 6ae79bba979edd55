package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import java.util.logging.Logger;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.state.RankState;
import org.mpirunft.bridge.ulfm.UlfmException;

/**
 * A job that goes on with fewer ranks when no spare is left ({@code when-no-spare: shrink}): the
 * survivors renumbered in their old order, down to a rank count the program accepts, and the
 * survivors beyond it parked until the job's end. Main thread only.
 */
final class RankShrink {
    private static final Logger LOG = Logger.getLogger(RankShrink.class.getName());

    /** The rank counts the program runs on. */
    private IntPredicate acceptedRanks = ranks -> true;
    /**
     * The survivors' worlds of shrinks to fewer ranks than survived: the ranks left out wait in a
     * barrier on them for the job's end, which the others join when they close.
     */
    private final List<Intracomm> parked = new ArrayList<>();
    private final RankView view;
    private final RankState state;
    private final CheckpointCoordinator coordinator;
    /** Tells the node daemon that this process ends on purpose. */
    private final Consumer<String> leaving;
    /** The rank's close at the job's end, which a parked survivor joins. */
    private final Runnable close;

    RankShrink(RankView view, RankState state, CheckpointCoordinator coordinator, Consumer<String> leaving, Runnable close) {
        this.view = view;
        this.state = state;
        this.coordinator = coordinator;
        this.leaving = leaving;
        this.close = close;
    }

    /** The rank counts the program can run on; a shrink goes to the largest of them the survivors make up. */
    void acceptRanks(IntPredicate accepted) {
        this.acceptedRanks = Objects.requireNonNull(accepted, "accepted rank counts");
    }

    /**
     * No spare for {@code lost}: this rank goes on among the survivors, renumbered in their old
     * order, and its state is laid out for their count by the rollback that follows. If the
     * program runs on fewer ranks than survived (a power of two, say), the last survivors leave
     * the world and wait for the job's end ({@link #park}).
     */
    void shrinkTo(int[] lost) throws MPIException {
        int before = view.rank();
        int survivors = view.world().getSize();
        int accepted = survivors;
        while (accepted > 0 && !acceptedRanks.test(accepted)) {
            accepted--;
        }
        if (accepted == 0) {
            throw new BridgeException("rank " + before + ": no spare for ranks " + Arrays.toString(lost) + ", and the program accepts no"
                    + " rank count of " + survivors + " or fewer; it cannot shrink");
        }
        if (accepted < survivors) {
            Intracomm all = view.world();
            boolean stays = all.getRank() < accepted;
            Intracomm kept = all.split(stays ? 0 : MPI.UNDEFINED, all.getRank());
            if (!stays) {
                park(all, accepted);
            }
            kept.setErrhandler(MPI.ERRORS_RETURN);
            parked.add(all);
            view.world(kept);
        }
        view.rank(view.world().getRank());
        int rank = view.rank();
        int ranks = view.world().getSize();
        state.placeAt(rank, ranks);
        coordinator.renumber(rank);
        if (rank == 0) {
            LOG.info(() -> "rank 0: no spare for ranks " + Arrays.toString(lost) + "; the job shrinks to " + ranks + " ranks");
        } else if (before != rank) {
            LOG.fine(() -> "rank " + before + " is rank " + rank + " of " + ranks + " now");
        }
    }

    /**
     * This survivor is not needed: the program runs on {@code ranks} ranks. Its process waits,
     * idle, in a barrier on the survivors' world until the others reach the job's end (then it
     * finalizes with them), or until a process of that world fails; it never returns. Leaving at
     * once would end the process without MPI_Finalize, which the runtime may take for a failure.
     */
    private void park(Intracomm survivors, int ranks) {
        int rank = view.rank();
        LOG.info(() -> "rank " + rank + ": the program runs on " + ranks + " ranks; this process leaves the world and waits for the job's end");
        leaving.accept("a shrink to " + ranks + " ranks left it out");
        try {
            IdleWait.await(survivors.iBarrier(), survivors);
        } catch (MPIException | UlfmException e) {
            LOG.info(() -> "rank " + rank + " (left out): the job ended without it (" + e.getMessage() + ")");
        }
        // As at the job's end: it joins earlier shrinks' barriers, if it stayed then, and finalizes, bounded.
        close.run();
        Runtime.getRuntime().halt(0);
    }

    /** At the job's end: the survivors a shrink left out wait for this rank in their barrier. */
    void releaseParked() {
        for (Intracomm left : parked) {
            try {
                IdleWait.await(left.iBarrier(), left);
            } catch (MPIException | UlfmException e) {
                LOG.fine(() -> "rank " + view.rank() + ": the ranks a shrink left out are gone (" + e.getMessage() + ")");
            }
        }
    }
}
