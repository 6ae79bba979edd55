package org.mpirunft.npb.is;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.npb.KernelIT;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.NpbJob;

/** IS verifies on 1, 2 and 4 ranks, and survives the loss of a rank mid-run. */
class IsIT extends KernelIT {
    /**
     * Class A on 4 ranks: 10 rankings of 2^23 keys, a few hundred milliseconds each. Rank 2
     * dies once iteration 3 is done, with checkpoints (8 MB of keys per rank) every 2
     * iterations, so it rolls back to the checkpoint before iteration 2 or a later one. The
     * restored keys and verification tally must still add up to all 51 checks passed. Paced
     * 300 ms an iteration until the kill: the 7 rankings after iteration 3 then last at least
     * 2.1 s more, where unpaced they could end before a late commit and the kill on a loaded
     * machine (as EP's did).
     */
    IsIT() {
        super("is", new MidRunKill(NpbClass.A, 2, 3, 2, 9, 300, List.of()));
    }

    /**
     * {@code --repeat 2}: 20 rankings, the second ten from freshly generated keys. Checkpoints
     * every 8 iterations, each iteration paced to 300 ms: rank 2 dies once iteration 11 (the
     * second repetition's second) is done, 1.5 s before the next checkpoint, so the job rolls
     * back across the repetitions' boundary to iteration 8, into the first repetition's keys:
     * the second repetition must generate its keys again. Both repetitions' 50 partial checks
     * and full verification must pass.
     */
    @Test
    void aRepeatedRunRollsBackAcrossTheRepetitionsBoundaryAndVerifiesBoth() throws Exception {
        NpbJob job = killRankMidRun(new MidRunKill(NpbClass.A, 8, 11, 8, 8, 300, List.of("--repeat", "2")));
        assertTrue(job.output().contains("Partial verification: 100 of 100 test ranks correct"), job.output());
        assertTrue(job.output().contains("Iterations:  10 (repeated 2 times)"), job.output());
    }
}
