package org.mpirunft.common.rank;

/**
 * How a warm spare's process is told apart on its node: mpirun-ft exports this variable, set to
 * {@code 1}, to the warm spares' app context only. A node daemon does not count an idle warm
 * spare as a slot in use (it waits for a rank that another node loses, and takes no CPU); once it
 * took a rank it speaks on the rank channel, and counts like any rank.
 */
public final class WarmSpareProcess {
    public static final String VARIABLE = "MPIRUN_FT_WARM_SPARE";

    private WarmSpareProcess() {
    }
}
