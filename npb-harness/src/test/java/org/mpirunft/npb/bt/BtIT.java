package org.mpirunft.npb.bt;

import java.util.List;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** BT verifies on square rank counts, and survives the loss of a rank mid-run. */
class BtIT extends KernelIT {
    /**
     * Square counts only: class S (12 planes) on 1 and 4 ranks, class W on 4. The kill: class W,
     * 200 time steps of 24^3, a few ms each on 4 ranks, so each is paced by 40 ms to kill into.
     * A checkpoint every 20 steps; rank 2 dies once step 100 is done and the checkpoint of step
     * 100 is committed; the job rolls back to that one or a later one taken before the kill
     * landed, not to the start.
     */
    BtIT() {
        super("bt", List.of(1, 4), List.of(4), new MidRunKill(NpbClass.W, 20, 100, 100, 160, 40, List.of()));
    }
}
