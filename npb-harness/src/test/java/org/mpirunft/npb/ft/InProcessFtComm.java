package org.mpirunft.npb.ft;

import org.mpirunft.npb.InProcessComm;
import org.mpirunft.npb.InProcessRanks;

/** {@link FtComm} for ranks that are threads of one JVM ({@link InProcessRanks}), so the transposes are tested without MPI. */
final class InProcessFtComm extends InProcessComm implements FtComm {
    InProcessFtComm(InProcessRanks ranks) {
        super(ranks);
    }
}
