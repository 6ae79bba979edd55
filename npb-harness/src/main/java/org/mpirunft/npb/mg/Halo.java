package org.mpirunft.npb.mg;

import mpi.MPIException;

/**
 * The periodic halo update (the specification's comm3): after it, every halo point of a
 * level holds the value of the interior point it wraps to, edges and corners included.
 *
 * <p>x first, then y over rows that already carry their x halos, then z over whole planes,
 * so the third pass carries the edges and corners along. In z a distributed level swaps its
 * outer planes with the neighbouring ranks; a replicated level (or a single rank) wraps
 * locally. Message buffers are per level and sized exactly, since the Java bindings copy a
 * whole array per call.
 */
final class Halo {
    private final double[][] toUp;
    private final double[][] toDown;
    private final double[][] fromUp;
    private final double[][] fromDown;

    Halo(Levels levels) {
        int top = levels.top();
        toUp = new double[top + 1][];
        toDown = new double[top + 1][];
        fromUp = new double[top + 1][];
        fromDown = new double[top + 1][];
        for (int k = 1; k <= top; k++) {
            Level level = levels.get(k);
            if (level.distributed() && levels.ranks() > 1) {
                toUp[k] = new double[level.plane()];
                toDown[k] = new double[level.plane()];
                fromUp[k] = new double[level.plane()];
                fromDown[k] = new double[level.plane()];
            }
        }
    }

    void update(MgComm comm, Level level, double[] a) throws MPIException {
        int n = level.n();
        int sx = level.sx();
        int plane = level.plane();
        int nz = level.nz();
        for (int l = 0; l < nz; l++) {
            for (int j = 0; j < n; j++) {
                int row = level.at(-1, j, l);
                a[row] = a[row + n];
                a[row + n + 1] = a[row + 1];
            }
            int first = level.at(-1, 0, l);
            System.arraycopy(a, first + (n - 1) * sx, a, first - sx, sx);
            System.arraycopy(a, first, a, first + n * sx, sx);
        }
        int bottom = level.at(-1, -1, 0);
        int topPlane = level.at(-1, -1, nz - 1);
        double[] up = toUp[level.k()];
        if (up == null) {
            System.arraycopy(a, topPlane, a, bottom - plane, plane);
            System.arraycopy(a, bottom, a, topPlane + plane, plane);
            return;
        }
        System.arraycopy(a, topPlane, up, 0, plane);
        System.arraycopy(a, bottom, toDown[level.k()], 0, plane);
        comm.shiftPlanes(up, fromDown[level.k()], toDown[level.k()], fromUp[level.k()], plane);
        System.arraycopy(fromDown[level.k()], 0, a, bottom - plane, plane);
        System.arraycopy(fromUp[level.k()], 0, a, topPlane + plane, plane);
    }
}
