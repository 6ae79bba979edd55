package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.ulfm.OmpiEnvironment;

/**
 * The thread level a rank asks of MPI_Init. MPI_THREAD_MULTIPLE puts a lock in every MPI call;
 * only the in-place pause needs it (the channel's thread revokes the world), so a restart job
 * (no ULFM) or a rank without a daemon must not pay for it.
 */
class ThreadLevelTest {
    private final FtConfig withDaemon = FtConfig.builder().job("j").rankSocket(Path.of("/run/ftd/rank.sock")).build();
    private final FtConfig withoutDaemon = FtConfig.builder().job("j").build();

    @Test
    void onlyARankWithADaemonAndUlfmAsksForThreadMultiple() {
        assertTrue(RankRuntime.needsThreadMultiple(withDaemon, OmpiEnvironment.ulfmEnabled("1")),
                "mpirun-ft --recovery pause: mpirun --with-ft ulfm sets mpi_ft_enable=1");
        assertFalse(RankRuntime.needsThreadMultiple(withDaemon, OmpiEnvironment.ulfmEnabled(null)),
                "--recovery restart: no ULFM, the pause order is never acted on");
        assertFalse(RankRuntime.needsThreadMultiple(withDaemon, OmpiEnvironment.ulfmEnabled("0")));
        assertFalse(RankRuntime.needsThreadMultiple(withoutDaemon, OmpiEnvironment.ulfmEnabled("1")),
                "plain mpirun: no channel thread calls MPI");
    }
}
