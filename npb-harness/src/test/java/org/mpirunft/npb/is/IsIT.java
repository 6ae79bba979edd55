package org.mpirunft.npb.is;

import org.junit.jupiter.api.Test;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** IS verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class IsIT extends KernelIT {
    @Override
    protected String kernel() {
        return "is";
    }

    /**
     * Class A on 4 ranks: 10 rankings of 2^23 keys, a few hundred milliseconds each. Rank 2
     * dies once iteration 3 is done, with checkpoints (8 MB of keys per rank) every 2
     * iterations, so it rolls back to the checkpoint before iteration 2 or a later one. The
     * restored keys and verification tally must still add up to all 51 checks passed.
     */
    @Test
    void verifiesAfterARankIsKilledMidRun() throws Exception {
        killRankMidRun(NpbClass.A, 2, 3, 2, 9);
    }
}
