package org.mpirunft.bridge.internal;

import java.nio.ByteBuffer;
import java.nio.LongBuffer;
import java.util.ArrayList;
import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import org.mpirunft.bridge.state.CorruptPartException;
import org.mpirunft.bridge.state.Snapshot;

/**
 * A moving rank's state, sent from its memory to the spare that takes its place, over MPI:
 * no storage on the way. First one small message (the sizes, the CRC32C, the checkpoint
 * coordinator's numbers), then the coordinator's manifests, then the snapshot's pieces as they
 * lie in memory (captured into direct buffers, which MPI sends as they are). The spare checks
 * the size and the CRC before it parses anything: a state that did not arrive whole is refused,
 * as a damaged checkpoint part is.
 */
final class StateTransfer {
    private static final int TAG_SIZES = 7201;
    private static final int TAG_MANIFESTS = 7202;
    private static final int TAG_PIECE = 7203;
    /** Fixed longs before the piece sizes: pieces, total bytes, CRC32C, then the coordinator's numbers. */
    private static final int FIXED = 3 + CheckpointCoordinator.Handover.LONGS;

    private StateTransfer() {
    }

    /** What a moving rank sends: its state at the safe point and its coordinator's handover. */
    record Outgoing(Snapshot snapshot, CheckpointCoordinator.Handover handover) {
    }

    /** What the spare received, and how long the receiving took. */
    record Received(Snapshot snapshot, CheckpointCoordinator.Handover handover, long bytes, long nanos) {
    }

    /** Sends {@code outgoing} to rank {@code to} of {@code comm}; returns the bytes of state sent. */
    static long send(Intracomm comm, int to, Outgoing outgoing) throws MPIException {
        List<ByteBuffer> pieces = outgoing.snapshot().pieces();
        long[] numbers = outgoing.handover().numbers();
        LongBuffer sizes = MPI.newLongBuffer(FIXED + pieces.size());
        long total = 0;
        for (int i = 0; i < pieces.size(); i++) {
            sizes.put(FIXED + i, pieces.get(i).remaining());
            total += pieces.get(i).remaining();
        }
        sizes.put(0, pieces.size()).put(1, total).put(2, outgoing.snapshot().crc32c());
        for (int i = 0; i < numbers.length; i++) {
            sizes.put(3 + i, numbers[i]);
        }
        byte[] manifests = outgoing.handover().manifests();
        ByteBuffer manifestBytes = MPI.newByteBuffer(Math.max(1, manifests.length)).put(0, manifests);
        List<Request> requests = new ArrayList<>();
        requests.add(comm.iSend(sizes, sizes.capacity(), MPI.LONG, to, TAG_SIZES));
        requests.add(comm.iSend(manifestBytes, manifests.length, MPI.BYTE, to, TAG_MANIFESTS));
        for (ByteBuffer piece : pieces) {
            requests.add(comm.iSend(piece, piece.remaining(), MPI.BYTE, to, TAG_PIECE));
        }
        IdleWait.awaitAll(requests, comm);
        // The buffers must outlive the sends: MPI reads them until they complete.
        java.lang.ref.Reference.reachabilityFence(pieces);
        java.lang.ref.Reference.reachabilityFence(manifestBytes);
        return total;
    }

    /** Receives what rank {@code from} of {@code comm} sends with {@link #send}. */
    static Received receive(Intracomm comm, int from) throws MPIException {
        long start = System.nanoTime();
        // The sizes message holds one size per piece: probe for its length first.
        int count = comm.probe(from, TAG_SIZES).getCount(MPI.LONG);
        LongBuffer sizes = MPI.newLongBuffer(count);
        comm.recv(sizes, count, MPI.LONG, from, TAG_SIZES);
        int pieces = (int) sizes.get(0);
        long total = sizes.get(1);
        long crc = sizes.get(2);
        long[] numbers = new long[CheckpointCoordinator.Handover.LONGS];
        for (int i = 0; i < numbers.length; i++) {
            numbers[i] = sizes.get(3 + i);
        }
        int manifestLength = (int) numbers[numbers.length - 1];
        ByteBuffer manifestBytes = MPI.newByteBuffer(Math.max(1, manifestLength));
        List<Request> requests = new ArrayList<>();
        requests.add(comm.iRecv(manifestBytes, manifestLength, MPI.BYTE, from, TAG_MANIFESTS));
        List<ByteBuffer> received = new ArrayList<>(pieces);
        for (int i = 0; i < pieces; i++) {
            ByteBuffer piece = ByteBuffer.allocateDirect(Math.toIntExact(sizes.get(FIXED + i)));
            received.add(piece);
            requests.add(comm.iRecv(piece, piece.capacity(), MPI.BYTE, from, TAG_PIECE));
        }
        IdleWait.awaitAll(requests, comm);
        byte[] manifests = new byte[manifestLength];
        manifestBytes.get(0, manifests);
        try {
            Snapshot snapshot = Snapshot.fromPieces(received, total, crc);
            return new Received(snapshot, CheckpointCoordinator.Handover.of(numbers, manifests), total, System.nanoTime() - start);
        } catch (CorruptPartException e) {
            throw new IllegalStateException("the moved state from rank " + from + " did not arrive whole: " + e.getMessage(), e);
        }
    }
}
