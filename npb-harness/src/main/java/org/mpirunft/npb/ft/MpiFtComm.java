package org.mpirunft.npb.ft;

import mpi.Intracomm;
import mpi.MPIException;
import org.mpirunft.npb.MpiComm;

/**
 * {@link FtComm} over one iteration's world communicator ({@link MpiComm}). Only the
 * transpose's round buffers, never the slabs, go to MPI, since the bindings copy an array
 * argument whole.
 */
final class MpiFtComm extends MpiComm implements FtComm {
    MpiFtComm(Intracomm world) throws MPIException {
        super(world);
    }
}
