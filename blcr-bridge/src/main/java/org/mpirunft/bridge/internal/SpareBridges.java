package org.mpirunft.bridge.internal;

import java.util.HashMap;
import java.util.Map;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * A two-process communicator between this process and each process of the launch it may meet
 * in a warm spare's rendezvous: every warm spare with every other process of
 * {@code MPI_COMM_WORLD}. Made at init, while nobody has failed, because no communicator that
 * holds a failed process can serve as the bridge of {@code MPI_Intercomm_create} under ULFM:
 * once a process of it failed, Open MPI marks it {@code coll_revoked}, and the internal
 * exchanges of a communicator's creation (collective tags) and {@code MPI_Comm_create_group}'s
 * early check fail on it (measured with Open MPI 5.0.7: over {@code MPI_COMM_WORLD} after a
 * rank's death the spare's {@code MPI_Intercomm_create} failed with {@code MPI_ERR_INTERN} and
 * the survivors' never returned; {@code MPI_Comm_create_group} failed with
 * {@code MPI_ERR_PROC_FAILED}). A pair holds only the two processes that meet, both alive when
 * they meet (they just answered each other), so its bridge works.
 *
 * <p>Pairs are made in one global order, spare by spare and then by the other process's rank,
 * each with {@code MPI_Comm_create_group} (point-to-point between the two only): the
 * smallest pair not yet made always has both of its processes at it, so nobody waits on a
 * process that waits elsewhere. A process holds one pair per spare, and a spare one per
 * process of the launch: P + S - 1 small communicators for a spare, S for a rank.
 */
final class SpareBridges {
    static final SpareBridges NONE = new SpareBridges(-1, Map.of());
    private final int self;
    /** The pair with each other process, by its rank in {@code MPI_COMM_WORLD}. */
    private final Map<Integer, Intracomm> pairs;

    private SpareBridges(int self, Map<Integer, Intracomm> pairs) {
        this.self = self;
        this.pairs = pairs;
    }

    /** Collective over {@code MPI_COMM_WORLD}, pairwise: every process of the launch calls it at init, before any failure. */
    static SpareBridges create(WarmSpares warm) throws MPIException {
        if (warm.isEmpty()) {
            return NONE;
        }
        int me = MPI.COMM_WORLD.getRank();
        int size = MPI.COMM_WORLD.getSize();
        Group world = MPI.COMM_WORLD.getGroup();
        Map<Integer, Intracomm> pairs = new HashMap<>();
        try {
            for (int spare = warm.firstRank(); spare < size; spare++) {
                for (int other = 0; other < spare; other++) {
                    if (me != spare && me != other) {
                        continue;
                    }
                    Group two = world.incl(new int[] {other, spare});
                    // The tag tells apart creations between the same two processes; each pair is made once.
                    Intracomm pair = MPI.COMM_WORLD.createGroup(two, spare);
                    pair.setErrhandler(MPI.ERRORS_RETURN);
                    two.free();
                    pairs.put(me == spare ? other : spare, pair);
                }
            }
        } finally {
            world.free();
        }
        return new SpareBridges(me, Map.copyOf(pairs));
    }

    /** Whether this process has a bridge to the process with world rank {@code worldRank}. */
    boolean reaches(int worldRank) {
        return pairs.containsKey(worldRank);
    }

    /** The pair with the process of world rank {@code worldRank}. */
    Intracomm to(int worldRank) {
        Intracomm pair = pairs.get(worldRank);
        if (pair == null) {
            throw new IllegalStateException("no bridge from world rank " + self + " to " + worldRank);
        }
        return pair;
    }

    /** The rank of the process with world rank {@code worldRank} in its pair with this one: the lower world rank is 0. */
    int rankOf(int worldRank) {
        return worldRank < self ? 0 : 1;
    }
}
