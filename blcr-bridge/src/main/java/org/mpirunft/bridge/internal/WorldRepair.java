package org.mpirunft.bridge.internal;

import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;

/**
 * Rebuilds the world communicator after a failure or a pause, keeping every rank number: the
 * survivors revoke and shrink, bring in one replacement per lost rank on the host given for it
 * (an idle warm spare there, or else a process they spawn), merge, and split so that each
 * replacement takes the number of the rank it replaces.
 */
final class WorldRepair {
    private static final Logger LOG = Logger.getLogger(WorldRepair.class.getName());
    /** Fixed part of what survivors tell replacements: lost count, spares used, last epoch, what for. */
    private static final int HEADER = 4;
    /** What the header's fourth word says the replacements are for: a repair, or a migration. */
    private static final long FOR_REPAIR = 0;
    private static final long FOR_MIGRATION = 1;
    /** A migration's details after the header: its number, the iteration to go on with, the lowest rank that stays. */
    private static final int MIGRATION_DETAILS = 3;
    /** What the root broadcasts, in place of "started", when there is no spare and the job shrinks. */
    private static final long SHRINK = 2;
    /** What the root broadcasts when warm spares answered on MPI_COMM_WORLD (SpareRendezvous); 1 says spawned replacements did, on a port. */
    private static final long WARM = 3;
    private static final long SPAWNED = 1;

    /**
     * The repaired world and what it cost; {@code warm}: the replacements were warm spares,
     * and {@code spawnNanos} is the time to call them. {@code partnerCopyBytes}: for a
     * replacement, the size of its part in the newest epoch a partner holds (0: none), so it can
     * make room for the copy while its program sets up.
     */
    record Repaired(Intracomm world, int[] replacedRanks, int sparesUsed, long lastEpoch,
                    long shrinkNanos, long spawnNanos, long mergeNanos, long spawnCpuNanos, boolean warm, long partnerCopyBytes,
                    MigratedIn migratedIn, boolean shrunk) {
        Repaired(Intracomm world, int[] replacedRanks, int sparesUsed, long lastEpoch, long shrinkNanos, long spawnNanos,
                 long mergeNanos, long spawnCpuNanos, boolean warm, long partnerCopyBytes) {
            this(world, replacedRanks, sparesUsed, lastEpoch, shrinkNanos, spawnNanos, mergeNanos, spawnCpuNanos, warm, partnerCopyBytes,
                    null, false);
        }

        Repaired(Intracomm world, int[] replacedRanks, int sparesUsed, long lastEpoch, long shrinkNanos, long spawnNanos,
                 long mergeNanos, long spawnCpuNanos, boolean warm, long partnerCopyBytes, MigratedIn migratedIn) {
            this(world, replacedRanks, sparesUsed, lastEpoch, shrinkNanos, spawnNanos, mergeNanos, spawnCpuNanos, warm, partnerCopyBytes,
                    migratedIn, false);
        }

        /**
         * No spare for the lost ranks ({@code replacedRanks}: none was replaced), and the job goes
         * on with the survivors: {@code world} is theirs, numbered in their old order.
         */
        static Repaired shrunkTo(Intracomm survivors, int[] lost, int sparesUsed, long lastEpoch, long shrinkNanos) {
            return new Repaired(survivors, lost, sparesUsed, lastEpoch, shrinkNanos, 0, 0, 0, false, 0, null, true);
        }
    }

    /**
     * A spare that took a moving rank's place: the migration's number, the iteration every rank
     * goes on with, and the moved rank's state as it arrived.
     */
    record MigratedIn(long seq, long iteration, StateTransfer.Received state) {
    }

    /**
     * A migration as the ranks of the world saw it: the new world (null for a rank that left),
     * and the time of its steps: calling the spares in and merging, the state's transfer (on a
     * moving rank, its send; 0 elsewhere), the state's bytes sent by this rank.
     */
    record Migrated(Intracomm world, long callNanos, long transferNanos, long bytesSent, boolean warm) {
    }

    /** The ranks could not bring the spares in; nobody was lost, and the old world goes on as it was. */
    static final class MigrationFailedException extends RuntimeException {
        MigrationFailedException(String message) {
            super(message);
        }
    }

    /** How to start a replacement: the command and arguments, and where. */
    interface ReplacementLauncher {
        String command();

        String[] arguments();

        /**
         * The host of each lost rank's replacement; called at the spawn's root only (the
         * lowest survivor), which alone needs them. {@code sparesUsed} counts the replacements
         * of this job so far, for a fallback list of spares. {@code attempt} counts from 1; a
         * later attempt follows one that failed, so it prefers a placement newer than the last.
         */
        Map<Integer, String> hostsFor(int[] lostRanks, int sparesUsed, int attempt);

        /**
         * Completes when the placement last returned by {@link #hostsFor} is out of date (the
         * scheduler sent a newer order: a spare or a survivor was lost meanwhile).
         */
        default CompletableFuture<Void> superseded() {
            return new CompletableFuture<>();
        }

        /** The job's warm spares. */
        default WarmSpares warmSpares() {
            return WarmSpares.NONE;
        }

        /**
         * An idle warm spare on the host given for each lost rank (lost rank to the spare's world
         * rank), or empty to spawn them all; at the root, after {@link #hostsFor}. Empty also when
         * this rank cannot call spares ({@link #callSpares}).
         */
        default Map<Integer, Integer> warmSparesFor(Map<Integer, String> hosts) {
            return Map.of();
        }

        /**
         * Calls the warm spares {@code group} (world ranks, in the order of the ranks they take)
         * on the rank channel, for try {@code attempt}; returns the call. Only after
         * {@link #warmSparesFor} named them.
         */
        default org.mpirunft.common.rank.RankMessage.SpareCall callSpares(List<Integer> group, int attempt) {
            throw new IllegalStateException("this launcher calls no warm spares");
        }

        /** This process's pairs with the warm spares (SpareRendezvous's bridges). */
        default SpareBridges spareBridges() {
            return SpareBridges.NONE;
        }

        /** Warm spares called into an attempt that failed: not to be called again in this job by this rank. */
        default void warmSparesFailed(java.util.Collection<Integer> worldRanks) {
        }
    }

    /** How often a repair is tried before the failure is handed up (each failed try lost a spare or a survivor). */
    static final int ATTEMPTS = 4;

    private WorldRepair() {
    }

    /**
     * Repairs {@code broken}. A failure during the repair (a survivor or the chosen spare lost
     * while the replacements start) does not end it: the survivors agree that the attempt
     * failed, drop what it built, shrink again and try once more with a newer placement. The
     * agreement on the attempt's outcome is what keeps the survivors together: a spawn or merge
     * can fail on some ranks and succeed on others, but the agreed value is the same on all.
     */
    static Repaired asSurvivor(Intracomm broken, int sparesUsed, long lastEpoch, ReplacementLauncher launcher,
                               java.util.function.IntToLongFunction partnerCopyBytes) throws MPIException {
        long start = System.nanoTime();
        try {
            Ulfm.revoke(broken);
        } catch (UlfmException alreadyRevoked) {
            // Another rank revoked first; shrink works on a revoked communicator.
        }
        Intracomm survivors = Ulfm.shrink(broken);
        survivors.setErrhandler(MPI.ERRORS_RETURN);
        int myRank = broken.getRank();
        for (int attempt = 1; ; attempt++) {
            int[] lost = lostRanks(broken, survivors);
            long shrunk = System.nanoTime();
            long shrunkCpu = IdleWait.cpuNanos();
            if (lost.length == 0) {
                // A pause with nobody lost: the shrunk world is the world, in the same order.
                return new Repaired(survivors, lost, sparesUsed, lastEpoch, shrunk - start, 0, 0, 0, false, 0);
            }
            Attempt tried = new Attempt();
            Exception failure = tried.run(survivors, lost, myRank, sparesUsed, lastEpoch, launcher, attempt, partnerCopyBytes);
            if (Ulfm.agreedValue(survivors, failure == null ? 1 : 0) == 1) {
                if (tried.shrinkOnly) {
                    return Repaired.shrunkTo(survivors, lost, sparesUsed, lastEpoch, shrunk - start);
                }
                long mergedAt = System.nanoTime();
                free(tried.toReplacements, tried.merged, survivors);
                return new Repaired(tried.world, lost, sparesUsed + lost.length, lastEpoch, shrunk - start,
                        tried.spawnedAt - shrunk, mergedAt - tried.spawnedAt, tried.spawnedCpu - shrunkCpu, !tried.calledSpares.isEmpty(), 0);
            }
            tried.abandon();
            if (!tried.calledSpares.isEmpty() && !tried.answered) {
                // Spares that never answered are dead or stuck; those that did wait again (abandon).
                launcher.warmSparesFailed(tried.calledSpares);
            }
            String why = failure != null ? failure.getMessage() : "another survivor's attempt failed";
            if (attempt >= ATTEMPTS) {
                if (failure != null) {
                    throw rethrown(failure);
                }
                throw new UlfmException("repair, given up after " + ATTEMPTS + " attempts", Ulfm.ERR_PROC_FAILED);
            }
            int tryNumber = attempt;
            LOG.warning(() -> "rank " + myRank + ": repair attempt " + tryNumber + " failed (" + why + "); trying again");
            try {
                Ulfm.revoke(survivors);
            } catch (UlfmException alreadyRevoked) {
                // Revoked by another survivor.
            }
            Intracomm fewer = Ulfm.shrink(survivors);
            fewer.setErrhandler(MPI.ERRORS_RETURN);
            free(survivors);
            survivors = fewer;
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

    private static MPIException rethrown(Exception failure) {
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        return (MPIException) failure;
    }

    /** One try at replacing the lost ranks; what it built so far, to keep or to drop. */
    private static final class Attempt {
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
        /** For a migration: its details ({@link #MIGRATION_DETAILS}), and this rank's state if it moves; else null. */
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
                throw rethrown(failure);
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
            StandIn standIn = null;
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
                        replacementJob = Pmix.spawn(apps(lost, hosts, port, launcher));
                        connecting = replacementJob;
                        standIn = StandIn.start(port, connecting, launcher.superseded());
                        answered = !awaitReplacements(port).equals(StandIn.answer(connecting));
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
            long[] header = new long[HEADER + 2 * lost.length];
            header[0] = lost.length;
            header[1] = sparesUsed + lost.length;
            header[2] = lastEpoch;
            header[3] = migration == null ? FOR_REPAIR : FOR_MIGRATION;
            for (int i = 0; i < lost.length; i++) {
                header[HEADER + i] = lost[i];
                header[HEADER + lost.length + i] = partnerCopyBytes.applyAsLong(lost[i]);
            }
            merged.bcast(header, header.length, MPI.LONG, 0);
            boolean leaving = false;
            if (migration != null) {
                merged.bcast(migration, MIGRATION_DETAILS, MPI.LONG, 0);
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

        /**
         * Returns once the replacements answered the survivors' rendezvous on {@code port} (or the
         * stand-in did in their place), in a PMIx wait rather than in MPI_Comm_accept, whose
         * survivors poll without rest while the replacements' JVMs start. The answer is read once
         * only, so it is published again for the accept that follows.
         */
        private static String awaitReplacements(String port) {
            String key = answerKey(port);
            String answer = Pmix.awaitPublished(key);
            try {
                Pmix.publish(key, answer);
            } catch (Pmix.PmixException e) {
                // The stand-in published an answer in the meantime: the accept reads that one and fails.
                LOG.fine(() -> "the replacements' answer was not published again: " + e.getMessage());
            }
            return answer;
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
            free(world, merged, toReplacements);
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
                Thread.ofPlatform().daemon().name("kill-" + job).start(() -> {
                    try {
                        Pmix.killJob(job);
                    } catch (RuntimeException e) {
                        LOG.fine(() -> "stopping the replacements of a failed attempt (" + job + "): " + e.getMessage());
                    }
                });
            }
        }

        /** One app per lost rank: this JVM's command, on the host given for it, told the port to connect to. */
        private static List<Pmix.App> apps(int[] lost, Map<Integer, String> hosts, String port, ReplacementLauncher launcher) {
            List<String> environment = new ArrayList<>();
            environment.add("OMPI_PARENT_PORT=" + port);
            // As MPI_Comm_spawn does: the parent's MCA settings go to the child.
            System.getenv().forEach((name, value) -> {
                if (name.startsWith("OMPI_MCA_")) {
                    environment.add(name + "=" + value);
                }
            });
            List<String> argv = new ArrayList<>();
            argv.add(launcher.command());
            argv.addAll(List.of(launcher.arguments()));
            String directory = System.getProperty("user.dir");
            List<Pmix.App> apps = new ArrayList<>();
            for (int rank : lost) {
                String host = hosts.get(rank);
                // PRRTE needs the slot count in the host value, or it reports "not enough slots".
                apps.add(new Pmix.App(argv, environment, directory, host == null ? null : host + ":1"));
            }
            return apps;
        }
    }

    /**
     * Ends a rendezvous that no replacement will answer. The survivors' root waits for the
     * replacements to publish who they are; one that died first never does, and the wait (like
     * Open MPI's own in MPI_Comm_accept) has no end. When the scheduler's placement is superseded (its
     * spare, or a survivor, was lost), or after a delay no start-up takes, the root publishes an
     * answer in their place that Open MPI rejects before it connects to anyone: a whole job
     * ("NSPACE.*") without its size. The accept then fails at once on every survivor, before
     * PMIx_Connect (which was seen to wait on a dead replacement past its timeout), and the
     * repair tries again; a replacement still alive is killed with the attempt.
     */
    private static final class StandIn {
        /** Far longer than a replacement takes from its spawn to the rendezvous (0.2-1 s here). */
        static final long DELAY_MILLIS = 10_000;
        private final Thread thread;

        private StandIn(Thread thread) {
            this.thread = thread;
        }

        static StandIn start(String port, String job, CompletableFuture<Void> superseded) {
            return new StandIn(Thread.ofPlatform().daemon().name("rendezvous-stand-in").start(() -> {
                try {
                    superseded.get(DELAY_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                } catch (TimeoutException | ExecutionException e) {
                    // The delay is up: stand in all the same.
                }
                try {
                    Pmix.publish(answerKey(port), answer(job));
                    LOG.info(() -> "the replacements (" + job + ") did not answer the survivors' rendezvous in time, or their "
                            + "placement was superseded; ending it");
                } catch (RuntimeException e) {
                    // The replacements published first: their own answer is on its way.
                    LOG.fine(() -> "stand-in for " + job + " not published: " + e.getMessage());
                }
            }));
        }

        /** Open MPI's form for a whole job is "NSPACE.*:SIZE"; without SIZE it is refused. */
        static String answer(String job) {
            return job + ".*";
        }

        void cancel() {
            thread.interrupt();
        }
    }

    /** Where Open MPI's rendezvous on {@code port} expects the connecting side's answer (who the replacements are). */
    private static String answerKey(String port) {
        return port + ":connect";
    }

    static Repaired asReplacement(Intercomm parent) throws MPIException {
        long start = System.nanoTime();
        Intracomm merged = parent.merge(true);
        merged.setErrhandler(MPI.ERRORS_RETURN);
        // The replacements' side of the connection: a spawned job's world.
        return asReplacement(merged, parent.getSize(), parent.getRank(), start);
    }

    /**
     * As {@link #asReplacement(Intercomm)}, for a replacement already in the merged world
     * {@code merged} (a warm spare: SpareRendezvous), the {@code index}-th of {@code replacements}.
     */
    static Repaired asReplacement(Intracomm merged, int replacements, int index, long start) throws MPIException {
        long[] header = new long[HEADER + 2 * replacements];
        merged.bcast(header, header.length, MPI.LONG, 0);
        int[] lost = new int[replacements];
        for (int i = 0; i < replacements; i++) {
            lost[i] = (int) header[HEADER + i];
        }
        int myRank = lost[index];
        MigratedIn migratedIn = null;
        if (header[3] == FOR_MIGRATION) {
            long[] details = new long[MIGRATION_DETAILS];
            merged.bcast(details, MIGRATION_DETAILS, MPI.LONG, 0);
            // The moving rank's place in the merged world is its rank: the survivors' side is the whole world, first.
            StateTransfer.Received state = StateTransfer.receive(merged, myRank);
            migratedIn = new MigratedIn(details[0], details[1], state);
            Intracomm world = merged.split(0, myRank);
            world.setErrhandler(MPI.ERRORS_RETURN);
            free(merged);
            // The ranks that stay confirm the move once every rank of the old world agreed on it; if
            // they gave it up instead, they revoked this world and the wait fails here.
            long[] confirmed = {0};
            world.bcast(confirmed, 1, MPI.LONG, (int) details[2]);
            if (confirmed[0] != 1) {
                throw new UlfmException("the migration was given up", Ulfm.ERR_REVOKED);
            }
            return new Repaired(world, lost, (int) header[1], header[2], 0, 0, System.nanoTime() - start, 0, false, 0, migratedIn);
        }
        Intracomm world = merged.split(0, myRank);
        world.setErrhandler(MPI.ERRORS_RETURN);
        free(merged);
        return new Repaired(world, lost, (int) header[1], header[2], 0, 0, System.nanoTime() - start, 0, false,
                header[HEADER + replacements + index]);
    }

    /**
     * Moves the ranks {@code moving} of {@code world} to spares, nobody rolled back: every rank of
     * the world (the moving ones too) calls the spares in on the placement {@code launcher} gives,
     * as a repair does, the moving ranks send their state ({@code outgoing}, null on the others)
     * straight to their spares, and the world splits with each spare in its moving rank's place.
     * The ranks then agree, fault-tolerantly, that it all worked, and only then does anyone use
     * the new world; the ranks that stay tell the spares so. If it did not work, what the attempt
     * built is dropped: with a rank of the world lost meanwhile, a process failure is thrown (the
     * job pauses, from its last committed epoch); with nobody lost (a spare did not answer),
     * {@link MigrationFailedException}, and the old world goes on as it was.
     *
     * @param details the migration's number, the iteration every rank goes on with, and the lowest rank that stays
     */
    static Migrated migrate(Intracomm world, int[] moving, int sparesUsed, long lastEpoch, long[] details, ReplacementLauncher launcher,
                            StateTransfer.Outgoing outgoing) throws MPIException {
        long start = System.nanoTime();
        int myRank = world.getRank();
        Attempt tried = new Attempt();
        tried.migration = details.clone();
        tried.moving = outgoing;
        Exception failure = tried.run(world, moving, myRank, sparesUsed, lastEpoch, launcher, 1, rank -> 0);
        if (Ulfm.agreedValue(world, failure == null ? 1 : 0) == 1) {
            long calledIn = tried.spawnedAt - start;
            if (tried.world != null) {
                long[] confirmed = {1};
                tried.world.bcast(confirmed, 1, MPI.LONG, (int) details[2]);
            }
            free(tried.toReplacements, tried.merged);
            return new Migrated(tried.world, calledIn, tried.transferNanos, tried.bytesSent, !tried.calledSpares.isEmpty());
        }
        tried.abandon();
        if (!tried.calledSpares.isEmpty() && !tried.answered) {
            launcher.warmSparesFailed(tried.calledSpares);
        }
        String why = failure != null ? failure.getMessage() : "another rank's part of the move failed";
        // Whether a rank of the world itself was lost: then the job pauses, as for any failure.
        if (Ulfm.agreedValue(world, Ulfm.failedRanks(world).length == 0 ? 1 : 0) == 0) {
            throw new UlfmException("the migration, a rank lost during it (" + why + "),", Ulfm.ERR_PROC_FAILED);
        }
        throw new MigrationFailedException(why);
    }

    /** Ranks of {@code broken} that have no counterpart in {@code survivors}. */
    private static int[] lostRanks(Intracomm broken, Intracomm survivors) throws MPIException {
        Group before = broken.getGroup();
        Group after = survivors.getGroup();
        int size = before.getSize();
        int[] all = new int[size];
        for (int r = 0; r < size; r++) {
            all[r] = r;
        }
        int[] translated = Group.translateRanks(before, all, after);
        List<Integer> lost = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (translated[r] == MPI.UNDEFINED) {
                lost.add(r);
            }
        }
        before.free();
        after.free();
        return lost.stream().mapToInt(Integer::intValue).toArray();
    }

    private static void free(mpi.Comm... comms) {
        for (mpi.Comm comm : comms) {
            if (comm == null) {
                continue;
            }
            try {
                comm.free();
            } catch (MPIException ignored) {
                // A communicator that cannot be freed after a failure only leaks a handle.
            }
        }
    }
}
