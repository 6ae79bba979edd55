package org.mpirunft.npb.lu;

import mpi.MPIException;

/**
 * The ghost rows of a field: the 2 rows next to the slab on each side, in every z plane, come
 * from the neighbouring ranks' edge rows. Packed into buffers of exactly the message size.
 */
final class Halo {
    private final Slab slab;
    private final int count;
    private final double[] toDown;
    private final double[] fromDown;
    private final double[] toUp;
    private final double[] fromUp;

    Halo(Slab slab) {
        this.slab = slab;
        this.count = slab.nz * Slab.GHOSTS * slab.rowStride;
        this.toDown = new double[count];
        this.fromDown = new double[count];
        this.toUp = new double[count];
        this.fromUp = new double[count];
    }

    void exchange(LuComm comm, double[] field) throws MPIException {
        if (comm.size() == 1) {
            return;
        }
        boolean down = comm.rank() > 0;
        boolean up = comm.rank() < comm.size() - 1;
        int block = Slab.GHOSTS * slab.rowStride;
        for (int k = 0; k < slab.nz; k++) {
            if (down) {
                System.arraycopy(field, slab.at(0, slab.firstRow, k), toDown, k * block, block);
            }
            if (up) {
                System.arraycopy(field, slab.at(0, slab.lastRow - Slab.GHOSTS + 1, k), toUp, k * block, block);
            }
        }
        comm.exchangeGhosts(toUp, fromDown, toDown, fromUp, count);
        for (int k = 0; k < slab.nz; k++) {
            if (down) {
                System.arraycopy(fromDown, k * block, field, slab.at(0, slab.firstRow - Slab.GHOSTS, k), block);
            }
            if (up) {
                System.arraycopy(fromUp, k * block, field, slab.at(0, slab.lastRow + 1, k), block);
            }
        }
    }
}
