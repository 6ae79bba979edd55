package org.mpirunft.bridge.internal;

import java.nio.LongBuffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import org.mpirunft.bridge.ulfm.UlfmException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.rank.RankMessage;

/**
 * The meeting of the survivors' root and the leader of the warm spares it called, on
 * {@code MPI_COMM_WORLD}, which both are processes of (the launch's namespace) and which nobody
 * revokes. It replaces the PMIx publish and lookup of a port name and MPI_Comm_connect/accept,
 * whose exchange goes through PRRTE's data server in mpirun and then a PMIx_Connect across the
 * participants' daemons: a lookup parked by a process of a node that died, or a participant that
 * died, held a repair there until its 90 s watchdog ("Node has gone down", ds_lookup.c).
 *
 * <p>The call itself reaches the spares on the rank channel ({@link RankMessage.SpareCall}).
 * Then: the spare leader sends ANSWER to the root; the root, once every survivor agreed to go
 * on, sends GO (1) or, giving the attempt up, GO (0); with GO (1) both sides build their
 * intercommunicator with {@code MPI_Intercomm_create} over {@code MPI_COMM_WORLD}, which is
 * leader-to-leader point-to-point and local broadcasts, no PRRTE service. Each message carries
 * the call's nonce: a message of a call given up (a cancelled wait leaves it unmatched on
 * {@code MPI_COMM_WORLD}) is read and dropped, never taken for this call's.
 *
 * <p>Waits, each bounded ({@code blcr-bridge/README.md}, Waits): the root's for the answer
 * ({@link #ANSWER_BOUND}, or until the scheduler supersedes the placement: the attempt fails and
 * the spare is not called again by this rank); the spare leader's for GO ({@link #GO_BOUND}: it
 * goes idle again). A process failure of the other side ends either wait at once (ULFM's
 * {@code PROC_FAILED} on a receive from a named source). The waits test and park as
 * {@link IdleWait} does: no core is kept busy.
 */
final class SpareRendezvous {
    /** Tags on {@code MPI_COMM_WORLD}; the application never uses that communicator (its world is a split of it). */
    static final int ANSWER_TAG = 32_001;
    static final int GO_TAG = 32_002;
    /** The intercommunicator's tags are drawn below the handshake's: MPI guarantees tags up to 32767. */
    private static final int INTERCOMM_TAGS = 30_000;
    /** As the spawn path's stand-in waits for a replacement's answer: far longer than a called spare takes (its JVM is up). */
    static final Duration ANSWER_BOUND = Duration.ofSeconds(10);
    /**
     * The spare leader's wait for GO: the root sends it after two agreements of the survivors,
     * which end within the failure detector's time; longer than {@link #ANSWER_BOUND} so that a
     * root that got the answer in time always finds the leader still waiting.
     */
    static final Duration GO_BOUND = RankRuntime.REPLACEMENT_JOIN_BOUND;
    /** A send of two longs leaves at once (eager); one that did not within this went to a dead process. */
    private static final Duration SEND_BOUND = Duration.ofSeconds(2);
    private static final long FIRST_PAUSE_NANOS = IdleWait.FIRST_PAUSE_NANOS;
    private static final long LONGEST_PAUSE_NANOS = IdleWait.LONGEST_PAUSE_NANOS;

    private SpareRendezvous() {
    }

    /** A fresh call of {@code group} (world ranks, leader first) by the root with world rank {@code rootRank}. */
    static RankMessage.SpareCall call(String job, String callId, List<Integer> group, WarmSpares warm, int rootRank) {
        long nonce = ThreadLocalRandom.current().nextLong();
        Map<Integer, String> nodes = new TreeMap<>();
        for (int spare : group) {
            nodes.put(spare, warm.nodes().get(spare - warm.firstRank()));
        }
        return new RankMessage.SpareCall(RankMessage.VERSION, job, callId, nonce, group, nodes, rootRank,
                1 + (int) Math.floorMod(nonce, (long) INTERCOMM_TAGS));
    }

    /**
     * At the root: returns once the spare leader answered {@code call}. Throws
     * {@link UlfmException} with {@code MPI_ERR_SPAWN} when {@code bound} ran out or
     * {@code superseded} completed first (the attempt failed, and is worth another), and the MPI
     * error when the leader is known failed.
     */
    static void awaitAnswer(RankMessage.SpareCall call, CompletableFuture<Void> superseded, Duration bound) throws MPIException {
        receive(call.group().get(0), ANSWER_TAG, call.nonce(), bound, superseded, "the answer of warm spare " + call.group().get(0));
    }

    /** At the root: tells the spare leader to build the intercommunicator ({@code go}) or to give the call up. */
    static void go(RankMessage.SpareCall call, boolean go) throws MPIException {
        send(call.group().get(0), GO_TAG, call.nonce(), go ? 1 : 0);
    }

    /**
     * At the spare leader: answers the root, then waits for its word. True to go on; false when
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
