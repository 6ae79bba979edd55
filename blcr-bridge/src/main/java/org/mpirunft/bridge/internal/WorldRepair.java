package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
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
         * of this job so far, for a fallback list of spares.
         */
        Map<Integer, String> hostsFor(int[] lostRanks, int sparesUsed);
    }

    private WorldRepair() {
    }

    static Repaired asSurvivor(Intracomm broken, int sparesUsed, long lastEpoch, ReplacementLauncher launcher) throws MPIException {
        long start = System.nanoTime();
        try {
            Ulfm.revoke(broken);
        } catch (UlfmException alreadyRevoked) {
            // Another rank revoked first; shrink works on a revoked communicator.
        }
        Intracomm survivors = Ulfm.shrink(broken);
        survivors.setErrhandler(MPI.ERRORS_RETURN);
        int[] lost = lostRanks(broken, survivors);
        long shrunk = System.nanoTime();
        int myRank = broken.getRank();
        if (lost.length == 0) {
            // A pause with nobody lost: the shrunk world is the world, in the same order.
            return new Repaired(survivors, lost, sparesUsed, lastEpoch, shrunk - start, 0, 0);
        }
        String[] commands = new String[lost.length];
        String[][] argv = new String[lost.length][];
        int[] counts = new int[lost.length];
        Info[] infos = new Info[lost.length];
        // Hosts matter at the spawn's root only; the others would wait for a placement for nothing.
        Map<Integer, String> hosts = survivors.getRank() == 0 ? launcher.hostsFor(lost, sparesUsed) : Map.of();
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
        Intercomm toReplacements = survivors.spawnMultiple(commands, argv, counts, infos, 0, null);
        long spawned = System.nanoTime();
        Intracomm merged = toReplacements.merge(false);
        merged.setErrhandler(MPI.ERRORS_RETURN);
        long[] header = new long[HEADER + lost.length];
        header[0] = lost.length;
        header[1] = sparesUsed + lost.length;
        header[2] = lastEpoch;
        for (int i = 0; i < lost.length; i++) {
            header[HEADER + i] = lost[i];
        }
        merged.bcast(header, header.length, MPI.LONG, 0);
        Intracomm world = merged.split(0, myRank);
        world.setErrhandler(MPI.ERRORS_RETURN);
        long mergedAt = System.nanoTime();
        free(toReplacements, merged, survivors);
        return new Repaired(world, lost, (int) header[1], lastEpoch, shrunk - start, spawned - shrunk, mergedAt - spawned);
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
            try {
                comm.free();
            } catch (MPIException ignored) {
                // A communicator that cannot be freed after a failure only leaks a handle.
            }
        }
    }
}
