package org.mpirunft.npb.sp;

import java.util.List;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** SP verifies on square rank counts (S on 1 and 4, W on 4), and survives the loss of a rank mid-run. */
class SpIT extends KernelIT {
    /**
     * The kill: class S, 100 steps of a few ms each, paced by 50 ms so that the kill lands
     * mid-run. Rank 2 dies once step 50 is done and the checkpoint of step 50 is committed; the
     * job rolls back to it (or, if a later one committed first, to step 60), not to the start.
     */
    SpIT() {
        super("sp", List.of(1, 4), List.of(4), new MidRunKill(NpbClass.S, 10, 50, 40, 60, 50, List.of()));
    }
}
