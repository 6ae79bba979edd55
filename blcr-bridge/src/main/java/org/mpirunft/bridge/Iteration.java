package org.mpirunft.bridge;

import mpi.Intracomm;
import mpi.MPIException;

/**
 * One iteration of a rank's main loop. It gets the world communicator to use for this
 * iteration: after a recovery that is a new communicator, so never keep one across iterations.
 * An iteration must complete all its communication before it returns; that is what makes the
 * boundary between iterations a safe point.
 */
@FunctionalInterface
public interface Iteration {
    void run(Intracomm world, long iteration) throws MPIException;
}
