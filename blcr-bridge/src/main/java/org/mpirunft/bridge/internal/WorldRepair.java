package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.logging.Logger;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;

/**
 * Rebuilds the world communicator after a failure or a pause, keeping every rank number: the
 * survivors revoke and shrink, bring in one replacement per lost rank on the host given for it
 * (an idle warm spare there, or else a process they spawn), merge, and split so that each
 * replacement takes the number of the rank it replaces. Each try is a {@link ReplacementAttempt};
 * this class owns the tries' loop, the survivors' agreement on each outcome, the replacements'
 * side, a migration's use of the same steps, and the header survivors and replacements share.
 */
final class WorldRepair {
    private static final Logger LOG = Logger.getLogger(WorldRepair.class.getName());
    /** Fixed part of what survivors tell replacements: lost count, spares used, last epoch, what for. */
    static final int HEADER = 4;
    /** What the header's fourth word says the replacements are for: a repair, or a migration. */
    static final long FOR_REPAIR = 0;
    static final long FOR_MIGRATION = 1;
    /** A migration's details after the header: its number, the iteration to go on with, the lowest rank that stays. */
    static final int MIGRATION_DETAILS = 3;

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
            ReplacementAttempt tried = new ReplacementAttempt();
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

    /** Throws {@code failure} if it is unchecked; else returns it, for the caller to throw. */
    static MPIException rethrown(Exception failure) {
        if (failure instanceof RuntimeException e) {
            throw e;
        }
        return (MPIException) failure;
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
        ReplacementAttempt tried = new ReplacementAttempt();
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

    /** Frees each of {@code comms} that is there; one that cannot be freed after a failure is left. */
    static void free(mpi.Comm... comms) {
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
