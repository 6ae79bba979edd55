package org.mpirunft.npb.bench;

import java.util.Map;

/**
 * The reference figures of Wang, Mueller, Engelmann and Scott, "A Job Pause Service under
 * LAM/MPI+BLCR for Transparent Fault Tolerance", IPDPS 2007 (16 nodes x 4 cores Opteron, GigE,
 * NFS, NPB class C), as /work/shared/notes/npb.md records them.
 */
public final class PaperFigures {
    /** Table 1: checkpoint file size per process in MB, by kernel, at 4 / 8 / 16 nodes. */
    public static final Map<String, double[]> CHECKPOINT_MB = Map.of(
            "bt", new double[] {406.90, 186.68, 111.12},
            "cg", new double[] {250.88, 127.17, 63.50},
            "ep", new double[] {1.33, 1.33, 1.33},
            "ft", new double[] {1841.02, 920.82, 460.73},
            "lu", new double[] {185.51, 99.50, 52.61},
            "mg", new double[] {619.46, 310.36, 157.31},
            "sp", new double[] {355.27, 170.47, 100.39});
    /** The node counts of Table 1's columns. */
    public static final int[] NODES = {4, 8, 16};
    /** Job pause + migrate took 5.6% longer than a full job restart, on average. */
    public static final double PAUSE_RESTART_RATIO = 1.056;
    /** The LAM runtime reboot a pause avoided, in seconds, at 4 / 8 / 16 nodes. */
    public static final double[] RUNTIME_REBOOT_S = {1.22, 2.85, 6.08};

    private PaperFigures() {
    }

    /** The paper's size for {@code kernel} at {@code nodes}, or null if it has none. */
    public static Double checkpointMb(String kernel, int nodes) {
        double[] sizes = CHECKPOINT_MB.get(kernel);
        if (sizes == null) {
            return null;
        }
        for (int i = 0; i < NODES.length; i++) {
            if (NODES[i] == nodes) {
                return sizes[i];
            }
        }
        return null;
    }
}
