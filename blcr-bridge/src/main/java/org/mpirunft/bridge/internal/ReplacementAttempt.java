package org.mpirunft.bridge.internal;

import java.nio.LongBuffer;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.internal.WorldRepair.ReplacementLauncher;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;

/**
 * One try of {@link WorldRepair} at bringing replacements in for the lost (or moving) ranks: the
 * root's placement and its decision (spawn, call warm spares, or shrink), broadcast to the other
 * survivors, their agreement that every survivor may go on, the rendezvous, the merge, the
 * header the replacements read, a moving rank's state, and the split. It keeps what it built so
 * far, so that the repair uses it or drops it ({@link #abandon}) once the survivors agreed on the
 * outcome. Not thread-safe: the rank's main thread owns it.
 */
final class ReplacementAttempt {
    private static final Logger LOG = Logger.getLogger(ReplacementAttempt.class.getName());
    /** What the root broadcasts, in place of "started", when there is no spare and the job shrinks. */
    private static final long SHRINK = 2;
    /** What the root broadcasts when warm spares answered on MPI_COMM_WORLD (SpareRendezvous); 1 says spawned replacements did, on a port. */
    private static final long WARM = 3;
    private static final long SPAWNED = 1;

    Intercomm toReplacements;
    /** The replacements' PMIx namespace, at the root once they were spawned; null for warm spares (they are the job's). */
    String replacementJob;
    /** The warm spares called, by world rank, at the root; empty if the replacements were spawned. */
    List<Integer> calledSpares = List.of();
    /** The rendezvous port of a spawn, at the root. */
    String port = "";
    /** The call of warm spares, at the root; null if the replacements were spawned. */
    org.mpirunft.common.rank.RankMessage.SpareCall call;
    /** The root told the called spares to go on: they are in MPI_Intercomm_create, or past it. */
    boolean saidGo;
    /** Who the stand-in would say connected: the spawned job, or the warm spares' (this job's) namespace. */
    String connecting;
    /** Whether the replacements themselves answered the rendezvous (not the stand-in): then they are past PMIx's start-up. */
    boolean answered;
    Intracomm merged;
    Intracomm world;
    long spawnedAt;
    long spawnedCpu;
    /** For a migration: its details ({@link WorldRepair#MIGRATION_DETAILS}), and this rank's state if it moves; else null. */
    long[] migration;
    StateTransfer.Outgoing moving;
    long transferNanos;
    long bytesSent;
    /** No spare: the survivors go on alone, without replacements (the root's decision, broadcast). */
    boolean shrinkOnly;

    /**
     * {@link #replace}, its failure returned: null if it worked here, the failure if it is
     * worth another attempt (the survivors agree on the outcome next). Any other failure
     * drops what the attempt built and is thrown.
     */
    Exception run(Intracomm survivors, int[] lost, int myRank, int sparesUsed, long lastEpoch, ReplacementLauncher launcher,
                  int attempt, java.util.function.IntToLongFunction partnerCopyBytes) throws MPIException {
        Exception failure = null;
        int failureClass = 0;
        try {
            replace(survivors, lost, myRank, sparesUsed, lastEpoch, launcher, attempt, partnerCopyBytes);
        } catch (MPIException e) {
            failure = e;
            failureClass = e.getErrorClass();
        } catch (UlfmException e) {
            failure = e;
            failureClass = e.errorCode();
        } catch (IllegalStateException e) {
            // A moved state that did not arrive whole: the attempt failed like any other.
            failure = e;
            failureClass = MPI.ERR_OTHER;
        }
        if (failure != null && !isRecoverable(failureClass)) {
            abandon();
            throw WorldRepair.rethrown(failure);
        }
        return failure;
    }

    void replace(Intracomm survivors, int[] lost, int myRank, int sparesUsed, long lastEpoch, ReplacementLauncher launcher,
                 int attempt, java.util.function.IntToLongFunction partnerCopyBytes) throws MPIException {
        boolean root = survivors.getRank() == 0;
        // Hosts matter at the spawn's root only; the others would wait for a placement for nothing.
        Map<Integer, String> hosts = root ? launcher.hostsFor(lost, sparesUsed, attempt) : Map.of();
        // No host at all: no spare, and the job goes on with the survivors (when-no-spare: shrink).
        // The root says so in the broadcast that would say the replacements started, and the
        // survivors agree on it as on a start, so a survivor lost meanwhile fails the attempt.
        boolean shrinks = root && hosts.isEmpty();
        LongBuffer started = MPI.newLongBuffer(1).put(0, shrinks ? SHRINK : 0);
        String why = "";
        SpawnRendezvous.StandIn standIn = null;
        if (root && !shrinks) {
            try {
                // The placement can name more ranks than this attempt lost (an order for a
                // failure that an earlier round of this recovery partly repaired).
                Map<Integer, String> lostHosts = new java.util.TreeMap<>();
                for (int rank : lost) {
                    lostHosts.put(rank, hosts.get(rank));
                }
                Map<Integer, Integer> warm = launcher.warmSparesFor(lostHosts);
                if (warm.isEmpty()) {
                    // MPI_Comm_spawn would be one call, but its rendezvous waits up to 10
                    // minutes (fixed in Open MPI) for a replacement that died before it
                    // answered: the spare lost right after the decision. So the root starts
                    // the replacements itself through PMIx with a port of its own, and the
                    // survivors accept them on it; the root can then end a rendezvous that
                    // nobody will answer (StandIn). This path still goes through PRRTE's
                    // data server and PMIx_Connect (README: the spawn fallback).
                    port = Intracomm.openPort();
                    replacementJob = Pmix.spawn(SpawnRendezvous.apps(lost, hosts, port, launcher));
                    connecting = replacementJob;
                    standIn = SpawnRendezvous.StandIn.start(port, connecting, launcher.superseded());
                    answered = !SpawnRendezvous.awaitReplacements(port).equals(SpawnRendezvous.StandIn.answer(connecting));
                    started.put(0, SPAWNED);
                } else {
                    // The spares join as one group, in the order of the ranks they take,
                    // which is the order of the header's lost ranks. The call goes on the
                    // rank channel, the answer on MPI_COMM_WORLD: no PRRTE service between.
                    calledSpares = List.copyOf(warm.values());
                    call = launcher.callSpares(calledSpares, attempt);
                    SpareRendezvous.awaitAnswers(call, launcher.superseded(), SpareRendezvous.ANSWER_BOUND);
                    answered = true;
                    started.put(0, WARM);
                }
            } catch (MPIException e) {
                // The called spare is known failed: the attempt failed, like a spawn that could not start.
                why = e.getMessage();
            } catch (RuntimeException e) {
                why = e.getMessage();
            }
        }
        // The others wait here, idle (IdleWait says why), for the placement, the spawn and the
        // replacements' start-up; the accept below then finds them ready.
        RuntimeException lostDuringStart = null;
        try {
            IdleWait.await(survivors.iBcast(started, 1, MPI.LONG, 0), survivors);
        } catch (MPIException e) {
            if (!Ulfm.isFailure(e)) {
                throw e;
            }
            lostDuringStart = new UlfmException("waiting for the replacements' start (" + e.getMessage() + ")", e.getErrorClass());
        } catch (UlfmException e) {
            if (!Ulfm.isFailureClass(e.errorCode())) {
                throw e;
            }
            lostDuringStart = e;
        }
        // The replacements started, or nobody is replaced (the job shrinks): either way the root decided.
        boolean decided = started.get(0) == SPAWNED || started.get(0) == WARM || started.get(0) == SHRINK;
        try {
            if (!everySurvivorReady(survivors, lostDuringStart == null && decided)) {
                if (lostDuringStart != null) {
                    throw lostDuringStart;
                }
                if (!decided) {
                    String reason = why;
                    LOG.warning(() -> "rank " + myRank + ": the replacements did not start" + (reason.isEmpty() ? "" : ": " + reason));
                    throw new UlfmException("spawning the replacements", MPI.ERR_SPAWN);
                }
                throw new UlfmException("a survivor was lost while the replacements started", Ulfm.ERR_PROC_FAILED);
            }
            if (started.get(0) == SHRINK) {
                shrinkOnly = true;
                return;
            }
            if (started.get(0) == WARM) {
                if (root) {
                    saidGo = true;
                    SpareRendezvous.go(call, true);
                }
                // The spares come in one at a time; the world they make is what the merge below
                // makes of spawned replacements: the survivors first, then the spares in lost-rank order.
                merged = SpareRendezvous.joinAsSurvivor(survivors, root ? call : null, lost.length, launcher.spareBridges());
            } else {
                toReplacements = survivors.accept(port, 0);
            }
        } catch (MPIException e) {
            if (Ulfm.isFailure(e)) {
                throw e;
            }
            // Whatever other class Open MPI gives a failed rendezvous (the stand-in's answer
            // is a bad argument to it), the attempt failed and is worth another.
            throw new UlfmException((started.get(0) == WARM ? "joining the warm spares (" : "accepting the replacements (")
                    + e.getMessage() + ")", MPI.ERR_SPAWN);
        } finally {
            if (standIn != null) {
                standIn.cancel();
            }
        }
        spawnedAt = System.nanoTime();
        spawnedCpu = IdleWait.cpuNanos();
        if (toReplacements != null) {
            merged = toReplacements.merge(false);
            merged.setErrhandler(MPI.ERRORS_RETURN);
        }
        // Then, per replacement, its rank and the size of its partner copy (read only at the root).
        long[] header = new long[WorldRepair.HEADER + 2 * lost.length];
        header[0] = lost.length;
        header[1] = sparesUsed + lost.length;
        header[2] = lastEpoch;
        header[3] = migration == null ? WorldRepair.FOR_REPAIR : WorldRepair.FOR_MIGRATION;
        for (int i = 0; i < lost.length; i++) {
            header[WorldRepair.HEADER + i] = lost[i];
            header[WorldRepair.HEADER + lost.length + i] = partnerCopyBytes.applyAsLong(lost[i]);
        }
        merged.bcast(header, header.length, MPI.LONG, 0);
        boolean leaving = false;
        if (migration != null) {
            merged.bcast(migration, WorldRepair.MIGRATION_DETAILS, MPI.LONG, 0);
            int survivorsSize = survivors.getSize();
            for (int i = 0; i < lost.length; i++) {
                if (lost[i] == myRank) {
                    // The merged world lists the survivors' side first, in their order, then the replacements in lost-rank order.
                    long sendStart = System.nanoTime();
                    bytesSent = StateTransfer.send(merged, survivorsSize + i, moving);
                    transferNanos = System.nanoTime() - sendStart;
                    leaving = true;
                }
            }
        }
        // A moving rank leaves the new world: its spare takes its number.
        world = merged.split(leaving ? MPI.UNDEFINED : 0, myRank);
        if (!leaving) {
            world.setErrhandler(MPI.ERRORS_RETURN);
        } else {
            world = null;
        }
    }

    /**
     * Whether every survivor may go into the accept: each is {@code ready} and knows of no
     * survivor lost since the shrink. The accept's PMIx_Connect never returns when one of
     * its participants is dead (PRRTE 5.0.0rc1), and the broadcast before it can complete
     * with a survivor lost (seen: a node killed while the replacement started left every
     * survivor in PMIx_Connect until the repair watchdog). An agreement involves every
     * survivor and takes failures into account; a second one catches a survivor lost
     * during the first (its survivors then know, and say so). Every survivor calls this,
     * whatever happened before, so the agreements match; the answer is the same on all.
     */
    private static boolean everySurvivorReady(Intracomm survivors, boolean ready) throws MPIException {
        boolean go = Ulfm.agreedValue(survivors, ready && Ulfm.failedRanks(survivors).length == 0 ? 1 : 0) == 1;
        return go && Ulfm.agreedValue(survivors, Ulfm.failedRanks(survivors).length == 0 ? 1 : 0) == 1;
    }

    /** Revokes what this attempt built, so that a replacement waiting on it gives up instead of hanging. */
    void abandon() {
        for (mpi.Comm comm : new mpi.Comm[] {world, merged, toReplacements}) {
            if (comm != null) {
                try {
                    Ulfm.revoke(comm);
                } catch (UlfmException ignored) {
                    // Already revoked, or broken: either way nobody waits on it.
                }
            }
        }
        WorldRepair.free(world, merged, toReplacements);
        if (call != null) {
            if (!saidGo) {
                // The called spares wait for the root's word (SpareRendezvous): give the call up,
                // and the spares wait for a call again instead of leaving at their bound. Also
                // when the answer did not come in time: a late answer waits for this word too.
                try {
                    SpareRendezvous.go(call, false);
                } catch (MPIException | RuntimeException e) {
                    LOG.fine(() -> "the called warm spares were not told the call was given up: " + e.getMessage());
                }
            }
            return;
        }
        // A replacement that answered waits in MPI_Init for a rendezvous that will not come:
        // it is stopped. One that did not answer is not: PRRTE (5.0.0rc1) takes a job killed
        // while its process starts for ended, and the registration that process sends a
        // moment later then names a job PRRTE no longer knows, which ends mpirun (seen: "PRTE
        // ERROR: Not found in file plm_base_receive.c"). That replacement, if alive, finds
        // the stand-in's answer in the place of its own and leaves on its own, or at its
        // join bound (RankRuntime.boundReplacementJoin); the next spawn may share its spare.
        String job = replacementJob;
        if (job != null && answered) {
            SpawnRendezvous.stop(job);
        }
    }

    /**
     * A spawn that could not place or start a replacement is recoverable too: the spare may be
     * the one that failed, and the next placement avoids it.
     */
    private static boolean isRecoverable(int errorClass) {
        return Ulfm.isFailureClass(errorClass) || errorClass == MPI.ERR_SPAWN || errorClass == MPI.ERR_UNKNOWN
                || errorClass == MPI.ERR_OTHER || errorClass == MPI.ERR_INTERN;
    }
}
