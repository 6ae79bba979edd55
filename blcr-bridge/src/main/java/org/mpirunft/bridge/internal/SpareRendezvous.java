package org.mpirunft.bridge.internal;

import java.nio.LongBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import org.mpirunft.bridge.ulfm.UlfmException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.rank.RankMessage;

/**
 * The meeting of the survivors' root and the warm spares it called, which are all processes
 * of the launch's {@code MPI_COMM_WORLD}. It replaces the PMIx publish and lookup of a port name and MPI_Comm_connect/accept,
 * whose exchange goes through PRRTE's data server in mpirun and then a PMIx_Connect across the
 * participants' daemons: a lookup parked by a process of a node that died, or a participant that
 * died, held a repair there until its 90 s watchdog ("Node has gone down", ds_lookup.c).
 *
 * <p>The call itself reaches the spares on the rank channel ({@link RankMessage.SpareCall}).
 * Then: each called spare sends ANSWER to the root on {@code MPI_COMM_WORLD} (point-to-point
 * with a user tag, which ULFM allows on a communicator that lost a process); the root, once
 * every survivor agreed to go on, sends each GO (1) or, giving the attempt up, GO (0). With GO
 * (1) the spares come in one at a time, in the order of the call: {@code MPI_Intercomm_create}
 * of the world so far (the survivors, then the spares already in) with the spare, over the
 * pair of the root and that spare ({@link SpareBridges}), then {@code MPI_Intercomm_merge}.
 * That is leader-to-leader point-to-point and local collectives, no PRRTE service. Each message carries
 * the call's nonce: a message of a call given up (a cancelled wait leaves it unmatched on
 * {@code MPI_COMM_WORLD}) is read and dropped, never taken for this call's.
 *
 * <p>Waits, each bounded ({@code blcr-bridge/README.md}, Waits): the root's for the answer
 * ({@link #ANSWER_BOUND} for all the called spares, or until the scheduler supersedes the
 * placement: the attempt fails and the spares are not called again by this rank); a spare's for GO ({@link #GO_BOUND}: it
 * goes idle again). A process failure of the other side ends either wait at once (ULFM's
 * {@code PROC_FAILED} on a receive from a named source). The waits test and park as
 * {@link IdleWait} does: no core is kept busy.
 */
final class SpareRendezvous {
    /** Tags on {@code MPI_COMM_WORLD} (the application never uses it: its world is a split of it); the joins use the call's tag and up. */
    static final int ANSWER_TAG = 32_001;
    static final int GO_TAG = 32_002;
    /** The intercommunicators' tags are drawn below the handshake's (MPI guarantees tags up to 32767), one per spare of a call. */
    private static final int INTERCOMM_TAGS = 30_000;
    /** The most spares one call brings in, so that its tags stay below the handshake's. */
    private static final int MOST_SPARES = 1_000;
    /** As the spawn path's stand-in waits for a replacement's answer: far longer than a called spare takes (its JVM is up). */
    static final Duration ANSWER_BOUND = Duration.ofSeconds(10);
    /**
     * A called spare's wait for GO: the root sends it after two agreements of the survivors,
     * which end within the failure detector's time; longer than {@link #ANSWER_BOUND} so that a
     * root that got the answer in time always finds the spare still waiting.
     */
    static final Duration GO_BOUND = RankRuntime.REPLACEMENT_JOIN_BOUND;
    /** A send of two longs leaves at once (eager); one that did not within this went to a dead process. */
    private static final Duration SEND_BOUND = Duration.ofSeconds(2);
    private static final long FIRST_PAUSE_NANOS = IdleWait.FIRST_PAUSE_NANOS;
    private static final long LONGEST_PAUSE_NANOS = IdleWait.LONGEST_PAUSE_NANOS;

    private SpareRendezvous() {
    }

    /** A fresh call of {@code group} (world ranks, in the order of the ranks they take) by the root with world rank {@code rootRank}. */
    static RankMessage.SpareCall call(String job, String callId, List<Integer> group, WarmSpares warm, int rootRank) {
        long nonce = ThreadLocalRandom.current().nextLong();
        Map<Integer, String> nodes = new TreeMap<>();
        for (int spare : group) {
            nodes.put(spare, warm.nodes().get(spare - warm.firstRank()));
        }
        return new RankMessage.SpareCall(RankMessage.VERSION, job, callId, nonce, group, nodes, rootRank,
                1 + (int) Math.floorMod(nonce, (long) (INTERCOMM_TAGS - MOST_SPARES)));
    }

    /**
     * At the root: returns once every spare of {@code call} answered. Throws
     * {@link UlfmException} with {@code MPI_ERR_SPAWN} when {@code bound} ran out or
     * {@code superseded} completed first (the attempt failed, and is worth another), and the MPI
     * error when a spare is known failed.
     */
    static void awaitAnswers(RankMessage.SpareCall call, CompletableFuture<Void> superseded, Duration bound) throws MPIException {
        long deadline = System.nanoTime() + bound.toNanos();
        for (int spare : call.group()) {
            Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
            receive(spare, ANSWER_TAG, call.nonce(), left, superseded, "the answer of warm spare " + spare);
        }
    }

    /**
     * At the root: tells the called spares to come in ({@code go}) or to give the call up. A
     * spare that cannot be told (it failed) is passed over when the call is given up; when it is
     * to come in, its failure fails the join that follows.
     */
    static void go(RankMessage.SpareCall call, boolean go) throws MPIException {
        for (int spare : call.group()) {
            try {
                send(spare, GO_TAG, call.nonce(), go ? 1 : 0);
            } catch (MPIException | UlfmException e) {
                if (go) {
                    throw e;
                }
            }
        }
    }

    /**
     * At every survivor ({@code call} is null but at the root): brings the {@code count} called
     * spares in one at a time and returns the world they make with the survivors: the survivors
     * in their order, then the spares in the call's order (what merging with spawned
     * replacements gives). A join that fails at the root revokes the world so far, so the other
     * survivors and the spares already in, which wait in its local broadcasts, fail too instead
     * of waiting for good.
     */
    static Intracomm joinAsSurvivor(Intracomm survivors, RankMessage.SpareCall call, int count, SpareBridges bridges)
            throws MPIException {
        Intracomm world = survivors;
        for (int i = 0; i < count; i++) {
            Intercomm joined;
            try {
                if (call != null) {
                    int spare = call.group().get(i);
                    joined = bridges.to(spare).createIntercomm(world, 0, bridges.rankOf(spare), call.tag() + i);
                } else {
                    // The bridge, the remote leader and the tag count at the local leader only.
                    joined = MPI.COMM_WORLD.createIntercomm(world, 0, 0, 0);
                }
            } catch (MPIException | UlfmException e) {
                if (call != null) {
                    revokeQuietly(world);
                }
                throw e;
            }
            Intracomm next = joined.merge(false);
            next.setErrhandler(MPI.ERRORS_RETURN);
            freeQuietly(joined);
            if (world != survivors) {
                freeQuietly(world);
            }
            world = next;
        }
        return world;
    }

    /** A called spare's place after its join: the world so far and its index among the spares of the call. */
    record Joined(Intracomm world, int index) {
    }

    /**
     * At the called spare with world rank {@code self}: comes in at its turn (after the spares
     * before it in the call), then takes part in the joins of the spares after it.
     */
    static Joined joinAsSpare(RankMessage.SpareCall call, int self, SpareBridges bridges) throws MPIException {
        int index = call.group().indexOf(self);
        int root = call.rootRank();
        Intercomm joined = bridges.to(root).createIntercomm(MPI.COMM_SELF, 0, bridges.rankOf(root), call.tag() + index);
        Intracomm world = joined.merge(true);
        world.setErrhandler(MPI.ERRORS_RETURN);
        freeQuietly(joined);
        for (int i = index + 1; i < call.group().size(); i++) {
            Intercomm next = MPI.COMM_WORLD.createIntercomm(world, 0, 0, 0);
            Intracomm merged = next.merge(false);
            merged.setErrhandler(MPI.ERRORS_RETURN);
            freeQuietly(next);
            freeQuietly(world);
            world = merged;
        }
        return new Joined(world, index);
    }

    private static void revokeQuietly(Intracomm comm) {
        try {
            org.mpirunft.bridge.ulfm.Ulfm.revoke(comm);
        } catch (UlfmException alreadyRevoked) {
            // Revoked already, or broken: either way nobody waits on it.
        }
    }

    private static void freeQuietly(mpi.Comm comm) {
        try {
            comm.free();
        } catch (MPIException ignored) {
            // A communicator that cannot be freed after a failure only leaks a handle.
        }
    }

    /**
     * At a called spare: answers the root, then waits for its word. True to go on; false when
     * the root gave the call up, or said nothing within {@code bound}. Throws the MPI error when
     * the root is known failed.
     */
    static boolean answerAndAwaitGo(RankMessage.SpareCall call, Duration bound) throws MPIException {
        send(call.rootRank(), ANSWER_TAG, call.nonce(), 1);
        try {
            return receive(call.rootRank(), GO_TAG, call.nonce(), bound, null, "the root's word") == 1;
        } catch (UlfmException e) {
            if (e.errorCode() != MPI.ERR_SPAWN) {
                throw e;
            }
            return false;
        }
    }

    private static void send(int dest, int tag, long nonce, long value) throws MPIException {
        LongBuffer message = MPI.newLongBuffer(2).put(0, nonce).put(1, value);
        Request sent = MPI.COMM_WORLD.iSend(message, 2, MPI.LONG, dest, tag);
        long deadline = System.nanoTime() + SEND_BOUND.toNanos();
        long pause = FIRST_PAUSE_NANOS;
        while (!sent.test()) {
            if (System.nanoTime() - deadline >= 0) {
                // Left to complete or fail with its destination; nothing waits for it.
                return;
            }
            LockSupport.parkNanos(pause);
            pause = Math.min(2 * pause, LONGEST_PAUSE_NANOS);
        }
    }

    /** The value of the message from {@code source} with {@code tag} and {@code nonce}; messages with another nonce are dropped. */
    private static long receive(int source, int tag, long nonce, Duration bound, CompletableFuture<Void> superseded, String what)
            throws MPIException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            LongBuffer message = MPI.newLongBuffer(2);
            Request received = MPI.COMM_WORLD.iRecv(message, 2, MPI.LONG, source, tag);
            long pause = FIRST_PAUSE_NANOS;
            while (!received.test()) {
                boolean late = System.nanoTime() - deadline >= 0;
                if (late || (superseded != null && superseded.isDone())) {
                    received.cancel();
                    // A cancelled receive completes at once (or, matched meanwhile, with its message: dropped).
                    received.waitFor();
                    throw new UlfmException(what + (late ? " did not come within " + Durations.format(bound)
                            : " was not awaited further: the placement was superseded"), MPI.ERR_SPAWN);
                }
                LockSupport.parkNanos(pause);
                pause = Math.min(2 * pause, LONGEST_PAUSE_NANOS);
            }
            if (message.get(0) == nonce) {
                return message.get(1);
            }
            // A message of an earlier call that was given up: read, and dropped.
        }
    }
}
