package org.mpirunft.bridge.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.ulfm.Pmix;

/** A rank's PMIx name, to declare it failed, and its node, to tell whether an order is about it. */
record Peer(Pmix.ProcessName name, String node) {
    static final int NODE_BYTES = 64;
    static final int BYTES = Pmix.NAME_BYTES + NODE_BYTES;

    /** This process's node as ranks exchange it: the short host name, NUL padded to {@link #NODE_BYTES}. */
    static byte[] thisNode() throws MPIException {
        byte[] padded = new byte[NODE_BYTES];
        byte[] node = RankRuntime.shortHostName(MPI.getProcessorName()).getBytes(StandardCharsets.UTF_8);
        System.arraycopy(node, 0, padded, 0, Math.min(node.length, NODE_BYTES));
        return padded;
    }

    /** The node written by {@link #thisNode} at {@code offset} of {@code bytes}. */
    static String node(byte[] bytes, int offset) {
        int limit = offset;
        while (limit < offset + NODE_BYTES && bytes[limit] != 0) {
            limit++;
        }
        return new String(bytes, offset, limit - offset, StandardCharsets.UTF_8);
    }

    /**
     * Every rank's PMIx name and node, so that a survivor can name a rank the runtime declared
     * lost to its MPI library. A replacement lives in its own PMIx namespace, so they are exchanged.
     */
    static List<Peer> gather(Intracomm world) throws MPIException {
        int size = world.getSize();
        byte[] mine = new byte[BYTES];
        System.arraycopy(Pmix.self().encode(), 0, mine, 0, Pmix.NAME_BYTES);
        System.arraycopy(thisNode(), 0, mine, Pmix.NAME_BYTES, NODE_BYTES);
        byte[] all = new byte[size * BYTES];
        world.allGather(mine, BYTES, MPI.BYTE, all, BYTES, MPI.BYTE);
        List<Peer> peers = new ArrayList<>(size);
        for (int r = 0; r < size; r++) {
            int offset = r * BYTES;
            peers.add(new Peer(Pmix.ProcessName.decode(all, offset), node(all, offset + Pmix.NAME_BYTES)));
        }
        return List.copyOf(peers);
    }
}
