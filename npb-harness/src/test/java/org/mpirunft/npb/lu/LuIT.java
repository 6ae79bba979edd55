package org.mpirunft.npb.lu;

import java.util.List;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** LU verifies class S on 1, 2 and 4 ranks and W on 4, and survives the loss of a rank mid-run. */
class LuIT extends KernelIT {
    /**
     * W on 4 only: 300 iterations of 33^3 take seconds on 1 or 2 ranks too, which the suite's
     * time does not afford. The kill: class W, 300 SSOR iterations of 33^3, checkpointed every
     * 30. Rank 2 dies once iteration 150 is done and the checkpoint of iteration 150 is
     * committed; the job rolls back to that one or a later one, holding u at that iteration,
     * and does not start over.
     */
    LuIT() {
        super("lu", List.of(1, 2, 4), List.of(4), new MidRunKill(NpbClass.W, 30, 150, 150, 240));
    }
}
