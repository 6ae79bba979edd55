package org.mpirunft.npb.cg;

import java.util.List;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** CG verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class CgIT extends KernelIT {
    /**
     * Class A on 4 ranks: 15 outer iterations of about 200 ms each. Rank 2 dies once iteration 3
     * is done (the kill lands a few iterations later), with checkpoints every 2 iterations, so
     * it rolls back to the checkpoint before iteration 2 or a later one, well before the end.
     * Paced 200 ms an iteration until the kill: the 12 iterations after iteration 3 then last at
     * least 4.8 s, where unpaced they could end before a late commit and the kill on a loaded
     * machine (as EP's did).
     */
    CgIT() {
        super("cg", new MidRunKill(NpbClass.A, 2, 3, 2, 14, 200, List.of()));
    }
}
