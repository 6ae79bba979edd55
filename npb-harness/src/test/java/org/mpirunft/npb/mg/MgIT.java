package org.mpirunft.npb.mg;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.NpbJob;

/** MG verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class MgIT extends KernelIT {
    /**
     * Class B, the smallest with enough iterations to kill into: 20 V-cycles of 256^3, a few
     * hundred ms each on 4 ranks. Rank 2 dies once iteration 8 is done, just after the
     * checkpoint of iteration 8 was started; the job rolls back to that one or, if it was not
     * committed yet, to the one before.
     */
    MgIT() {
        super("mg", new MidRunKill(NpbClass.B, 4, 8, 4, 12));
    }

    /**
     * {@code --repeat 3} of class A (4 V-cycles each): rank 2 dies once iteration 5 (the
     * second repetition's second) is done, with checkpoints every 2 iterations, so the job rolls
     * back to iteration 4 (v rebuilt, u = 0 again) or 6. Every repetition's norm must be NPB's.
     */
    @Test
    void aRepeatedRunRecoversInItsSecondRepetitionAndVerifiesEveryOne() throws Exception {
        NpbJob job = killRankMidRun(new MidRunKill(NpbClass.A, 2, 5, 4, 8, 0, List.of("--repeat", "3")));
        assertTrue(job.output().contains("Repetitions: 3, 3 within the tolerance"), job.output());
    }
}
