package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;
import mpi.Group;
import mpi.Info;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.ulfm.Ulfm;
import org.mpirunft.bridge.ulfm.UlfmException;

/**
 * Rebuilds the world communicator after a failure or a pause, keeping every rank number: the
 * survivors revoke and shrink, spawn one replacement per lost rank on the host given for it,
 * merge, and split so that each replacement takes the number of the rank it replaces.
 */
final class WorldRepair {
    private static final Logger LOG = Logger.getLogger(WorldRepair.class.getName());
    /** Fixed part of what survivors tell replacements: lost count, spares used, last epoch. */
    private static final int HEADER = 3;

    /** The repaired world and what it cost. */
    record Repaired(Intracomm world, int[] replacedRanks, int sparesUsed, long lastEpoch,
                    long shrinkNanos, long spawnNanos, long mergeNanos) {
    }

    /** How to start a replacement: the command and arguments, and where. */
    interface ReplacementLauncher {
        String command();

        String[] arguments();

        /**
         * The host of each lost rank's replacement; called at the spawn's root only (the
         * lowest survivor), which alone needs them. {@code sparesUsed} counts the replacements
         * of this job so far, for a fallback list of spares. {@code attempt} counts from 1; a
         * later attempt follows one that failed, so it needs a placement newer than the last.
         */
        Map<Integer, String> hostsFor(int[] lostRanks, int sparesUsed, int attempt);
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
    static Repaired asSurvivor(Intracomm broken, int sparesUsed, long lastEpoch, ReplacementLauncher launcher) throws MPIException {
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
            if (lost.length == 0) {
                // A pause with nobody lost: the shrunk world is the world, in the same order.
                return new Repaired(survivors, lost, sparesUsed, lastEpoch, shrunk - start, 0, 0);
            }
            Attempt tried = new Attempt();
            Exception failure = null;
            int failureClass = 0;
            try {
                tried.replace(survivors, lost, myRank, sparesUsed, lastEpoch, launcher, attempt);
            } catch (MPIException e) {
                failure = e;
                failureClass = e.getErrorClass();
            } catch (UlfmException e) {
                failure = e;
                failureClass = e.errorCode();
            }
            if (failure != null && !isRecoverable(failureClass)) {
                tried.abandon();
                throw rethrown(failure);
            }
            if (Ulfm.agreedValue(survivors, failure == null ? 1 : 0) == 1) {
                long mergedAt = System.nanoTime();
                free(tried.toReplacements, tried.merged, survivors);
                return new Repaired(tried.world, lost, sparesUsed + lost.length, lastEpoch, shrunk - start,
                        tried.spawnedAt - shrunk, mergedAt - tried.spawnedAt);
            }
            tried.abandon();
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
        if (failure instanceof UlfmException e) {
            throw e;
        }
        return (MPIException) failure;
    }

    /** One try at replacing the lost ranks; what it built so far, to keep or to drop. */
    private static final class Attempt {
        Intercomm toReplacements;
        Intracomm merged;
        Intracomm world;
        long spawnedAt;

        void replace(Intracomm survivors, int[] lost, int myRank, int sparesUsed, long lastEpoch, ReplacementLauncher launcher,
                     int attempt) throws MPIException {
            String[] commands = new String[lost.length];
            String[][] argv = new String[lost.length][];
            int[] counts = new int[lost.length];
            Info[] infos = new Info[lost.length];
            // Hosts matter at the spawn's root only; the others would wait for a placement for nothing.
            Map<Integer, String> hosts = survivors.getRank() == 0 ? launcher.hostsFor(lost, sparesUsed, attempt) : Map.of();
            for (int i = 0; i < lost.length; i++) {
                commands[i] = launcher.command();
                argv[i] = launcher.arguments();
                counts[i] = 1;
                infos[i] = new Info();
                String host = hosts.get(lost[i]);
                if (host != null) {
                    // PRRTE needs the slot count in the host value, or it reports "not enough slots".
                    infos[i].set("host", host + ":1");
                }
            }
            toReplacements = survivors.spawnMultiple(commands, argv, counts, infos, 0, null);
            spawnedAt = System.nanoTime();
            merged = toReplacements.merge(false);
            merged.setErrhandler(MPI.ERRORS_RETURN);
            long[] header = new long[HEADER + lost.length];
            header[0] = lost.length;
            header[1] = sparesUsed + lost.length;
            header[2] = lastEpoch;
            for (int i = 0; i < lost.length; i++) {
                header[HEADER + i] = lost[i];
            }
            merged.bcast(header, header.length, MPI.LONG, 0);
            world = merged.split(0, myRank);
            world.setErrhandler(MPI.ERRORS_RETURN);
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
        }
    }

    static Repaired asReplacement(Intercomm parent) throws MPIException {
        long start = System.nanoTime();
        Intracomm merged = parent.merge(true);
        merged.setErrhandler(MPI.ERRORS_RETURN);
        int replacements = MPI.COMM_WORLD.getSize();
        long[] header = new long[HEADER + replacements];
        merged.bcast(header, header.length, MPI.LONG, 0);
        int[] lost = new int[replacements];
        for (int i = 0; i < replacements; i++) {
            lost[i] = (int) header[HEADER + i];
        }
        int myRank = lost[MPI.COMM_WORLD.getRank()];
        Intracomm world = merged.split(0, myRank);
        world.setErrhandler(MPI.ERRORS_RETURN);
        free(merged);
        return new Repaired(world, lost, (int) header[1], header[2], 0, 0, System.nanoTime() - start);
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
