package org.mpirunft.npb.ep;

import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** EP verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class EpIT extends KernelIT {
    /** Class A, so iterations are long enough to kill into: rank 2 dies after iteration 40 of 64. */
    EpIT() {
        super("ep", new MidRunKill(NpbClass.A, 8, 40, 40, 63));
    }
}
