package org.mpirunft.npb.mg;

import org.junit.jupiter.api.Test;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** MG verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class MgIT extends KernelIT {
    @Override
    protected String kernel() {
        return "mg";
    }

    /**
     * Class B, the smallest with enough iterations to kill into: 20 V-cycles of 256^3, a few
     * hundred ms each on 4 ranks. Rank 2 dies once iteration 8 is done, just after the
     * checkpoint of iteration 8 was started; the job rolls back to that one or, if it was not
     * committed yet, to the one before.
     */
    @Test
    void verifiesAfterARankIsKilledMidRun() throws Exception {
        killRankMidRun(NpbClass.B, 4, 8, 4, 12);
    }
}
