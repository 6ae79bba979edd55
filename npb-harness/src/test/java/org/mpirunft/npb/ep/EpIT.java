package org.mpirunft.npb.ep;

import java.util.List;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;

/** EP verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class EpIT extends KernelIT {
    /**
     * Class A; rank 2 dies after iteration 16 of 64. Unpaced, an iteration of EP takes about
     * 0.1 s, and on a loaded machine the rest of the run ended before the kill reached node3
     * ("no rank on node3"): the run is paced, 100 ms after each iteration, until the kill (48
     * iterations left are then at least 4.8 s), and runs at full speed after it.
     */
    EpIT() {
        super("ep", new MidRunKill(NpbClass.A, 8, 16, 16, 63, 100, List.of()));
    }
}
