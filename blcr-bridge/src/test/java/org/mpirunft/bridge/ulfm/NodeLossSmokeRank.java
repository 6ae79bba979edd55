package org.mpirunft.bridge.ulfm;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import mpi.Info;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * The platform smoke job: ranks allreduce in a loop until a peer dies, then the survivors
 * revoke and shrink through ULFM, spawn one replacement per lost rank on the spare node named
 * in {@code args[0]}, merge with it, and finish one allreduce on the repaired communicator.
 * Rank 0 reports every step on stdout for the test to check.
 *
 * <p>Started by mpirun as {@code NodeLossSmokeRank SPARE}; a replacement gets
 * {@code --replacement} instead.
 */
public final class NodeLossSmokeRank {
    private static final String REPLACEMENT = "--replacement";
    private static final long MAX_WAIT_FOR_FAILURE_NANOS = 60_000_000_000L;
    private static final long FINALIZE_BOUND_MILLIS = 20_000;
    private static final int HOST_NAME_BYTES = 64;

    private NodeLossSmokeRank() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm repaired = args.length > 0 && args[0].equals(REPLACEMENT)
                ? joinAsReplacement()
                : runUntilFailureAndRepair(args[0]);
        finish(repaired);
    }

    private static Intracomm runUntilFailureAndRepair(String spare) throws MPIException {
        Intracomm world = MPI.COMM_WORLD;
        world.setErrhandler(MPI.ERRORS_RETURN);
        int rank = world.getRank();
        int size = world.getSize();
        int[] value = new int[1];
        long start = System.nanoTime();
        boolean announced = false;
        while (true) {
            try {
                value[0] = 1;
                world.allReduce(value, 1, MPI.INT, MPI.SUM);
                if (!announced) {
                    say(rank, "READY size=" + size + " sum=" + value[0] + " host=" + MPI.getProcessorName());
                    announced = true;
                }
            } catch (MPIException e) {
                if (!Ulfm.isFailure(e)) {
                    throw e;
                }
                say(rank, "FAILURE-SEEN class=" + e.getErrorClass());
                Ulfm.ackFailed(world);
                say(rank, "FAILED-RANKS " + java.util.Arrays.toString(Ulfm.failedRanks(world)));
                break;
            }
            if (System.nanoTime() - start > MAX_WAIT_FOR_FAILURE_NANOS) {
                say(rank, "NO-FAILURE within 60 s");
                System.exit(2);
            }
            sleepMillis(20);
        }
        long failureSeen = System.nanoTime();
        Ulfm.revoke(world);
        Intracomm survivors = Ulfm.shrink(world);
        survivors.setErrhandler(MPI.ERRORS_RETURN);
        int lost = size - survivors.getSize();
        say(rank, "SHRUNK survivors=" + survivors.getSize() + " lost=" + lost);

        Info info = new Info();
        // PRRTE needs the slot count in the host value, or it reports "not enough slots".
        info.set("host", spare + ":" + lost);
        String[] argv = {"--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), NodeLossSmokeRank.class.getName(), REPLACEMENT};
        Intercomm toReplacements = survivors.spawn("java", argv, lost, info, 0, null);
        Intracomm merged = toReplacements.merge(false);
        merged.setErrhandler(MPI.ERRORS_RETURN);
        say(merged.getRank(), "RECOVERED ms=" + (System.nanoTime() - failureSeen) / 1_000_000);
        return merged;
    }

    private static Intracomm joinAsReplacement() throws MPIException {
        Intercomm parent = Intercomm.getParent();
        Intracomm merged = parent.merge(true);
        merged.setErrhandler(MPI.ERRORS_RETURN);
        return merged;
    }

    /** One checked allreduce and a gather of host names on the repaired communicator. */
    private static void finish(Intracomm comm) throws MPIException {
        int rank = comm.getRank();
        int size = comm.getSize();
        int[] squares = {(rank + 1) * (rank + 1)};
        comm.allReduce(squares, 1, MPI.INT, MPI.SUM);
        int expected = size * (size + 1) * (2 * size + 1) / 6;

        byte[] mine = Arrays.copyOf(MPI.getProcessorName().getBytes(StandardCharsets.UTF_8), HOST_NAME_BYTES);
        byte[] all = new byte[HOST_NAME_BYTES * size];
        comm.allGather(mine, HOST_NAME_BYTES, MPI.BYTE, all, HOST_NAME_BYTES, MPI.BYTE);
        StringBuilder hosts = new StringBuilder();
        for (int r = 0; r < size; r++) {
            String host = new String(all, r * HOST_NAME_BYTES, HOST_NAME_BYTES, StandardCharsets.UTF_8).replace("\0", "");
            hosts.append(r == 0 ? "" : ",").append(host);
        }
        say(rank, "RESULT size=" + size + " sum=" + squares[0] + " expected=" + expected + " hosts=" + hosts);
        comm.barrier();
        finalizeBounded(rank);
    }

    // MPI_Finalize can hang after a recovery (see the platform notes): bound it, and make a
    // hang visible as a distinct exit status instead of hiding it.
    private static void finalizeBounded(int rank) throws MPIException {
        Thread watchdog = new Thread(() -> {
            sleepMillis(FINALIZE_BOUND_MILLIS);
            say(rank, "FINALIZE-HUNG after " + FINALIZE_BOUND_MILLIS + " ms");
            Runtime.getRuntime().halt(3);
        }, "finalize-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        MPI.Finalize();
        say(rank, "FINALIZED");
    }

    private static void say(int rank, String message) {
        if (rank == 0) {
            System.out.println("smoke: " + message);
            System.out.flush();
        }
    }

    private static void sleepMillis(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
