package org.mpirunft.bridge.internal;

import java.nio.ByteBuffer;
import java.util.List;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;

/**
 * Three ranks. Rank 0 sends a large part to rank 1, as a partner copy goes to its holder, and
 * receives one from rank 2; rank 1 SIGKILLs itself without posting its receive. Rank 0 then
 * waits for both transfers, through {@link IdleWait#awaitAll} (argument {@code await-all}) or
 * Open MPI's {@code MPI_Waitall} ({@code waitall}), and prints {@code ENDED ms=... error=...}
 * when the wait ends.
 */
public final class TransferToDeadPeerRank {
    /** Far above Open MPI's eager limit: the send waits for the receiver's answer. */
    private static final int PART_BYTES = 64 << 20;

    private TransferToDeadPeerRank() {
    }

    public static void main(String[] args) throws Exception {
        boolean awaitAll = args.length > 0 && args[0].equals("await-all");
        MPI.Init(args);
        MPI.COMM_WORLD.setErrhandler(MPI.ERRORS_RETURN);
        int rank = MPI.COMM_WORLD.getRank();
        MPI.COMM_WORLD.barrier();
        ByteBuffer part = ByteBuffer.allocateDirect(PART_BYTES);
        switch (rank) {
            case 0 -> {
                Request send = MPI.COMM_WORLD.iSend(part, PART_BYTES, MPI.BYTE, 1, 7);
                ByteBuffer incoming = ByteBuffer.allocateDirect(PART_BYTES);
                Request receive = MPI.COMM_WORLD.iRecv(incoming, PART_BYTES, MPI.BYTE, 2, 7);
                long start = System.nanoTime();
                String error = "none";
                try {
                    if (awaitAll) {
                        IdleWait.awaitAll(List.of(send, receive), MPI.COMM_WORLD);
                    } else {
                        Request.waitAll(new Request[] {send, receive});
                    }
                } catch (MPIException e) {
                    error = Integer.toString(e.getErrorClass());
                } catch (org.mpirunft.bridge.ulfm.UlfmException e) {
                    error = Integer.toString(e.errorCode());
                }
                System.out.printf("ENDED ms=%d error=%s%n", (System.nanoTime() - start) / 1_000_000, error);
                System.out.flush();
                // The job has lost a rank: end without MPI_Finalize, which can hang after a failure.
                Runtime.getRuntime().halt(0);
            }
            case 1 -> new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start().waitFor();
            default -> {
                try {
                    MPI.COMM_WORLD.send(part, PART_BYTES, MPI.BYTE, 0, 7);
                    Thread.sleep(60_000);
                } finally {
                    // Rank 0 leaves once its wait ended; nothing more to do here.
                    Runtime.getRuntime().halt(0);
                }
            }
        }
    }
}
