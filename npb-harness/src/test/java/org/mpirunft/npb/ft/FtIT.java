package org.mpirunft.npb.ft;

import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** FT verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class FtIT extends KernelIT {
    /**
     * Class A: 6 time steps of 256x256x128, about half a second each on 4 ranks, checkpointed
     * before every step from the second on. Rank 2 dies once iteration 2 is done, with three
     * of six to go; the job rolls back to the newest committed checkpoint, which holds the
     * spectrum, so it does not start over.
     */
    FtIT() {
        super("ft", new MidRunKill(NpbClass.A, 1, 2, 1, 4));
    }
}
