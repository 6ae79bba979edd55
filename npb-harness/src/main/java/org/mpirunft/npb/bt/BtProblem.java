package org.mpirunft.npb.bt;

import org.mpirunft.npb.NpbClass;

/**
 * One BT class as NPB 3.x defines it: the grid side, the number of time steps, the time step,
 * and the reference RMS norms of the residual (xcr) and of the error against the exact
 * solution (xce) that NPB's verification compares with.
 */
record BtProblem(NpbClass cls, int n, int steps, double dt, double[] residualReference, double[] errorReference) {

    static BtProblem of(NpbClass cls) {
        return switch (cls) {
            case S -> new BtProblem(cls, 12, 60, 0.010,
                    new double[] {1.7034283709541311e-01, 1.2975252070034097e-02, 3.2527926989486055e-02,
                            2.6436421275166801e-02, 1.9211784131744430e-01},
                    new double[] {4.9976913345811579e-04, 4.5195666782961927e-05, 7.3973765172921357e-05,
                            7.3821238632439731e-05, 8.9269630987491446e-04});
            case W -> new BtProblem(cls, 24, 200, 0.0008,
                    new double[] {0.1125590409344e+03, 0.1180007595731e+02, 0.2710329767846e+02, 0.2469174937669e+02,
                            0.2638427874317e+03},
                    new double[] {0.4419655736008e+01, 0.4638531260002e+00, 0.1011551749967e+01, 0.9235878729944e+00,
                            0.1018045837718e+02});
            case A -> new BtProblem(cls, 64, 200, 0.0008,
                    new double[] {1.0806346714637264e+02, 1.1319730901220813e+01, 2.5974354511582465e+01,
                            2.3665622544678910e+01, 2.5278963211748344e+02},
                    new double[] {4.2348416040525025e+00, 4.4390282496995698e-01, 9.6692480136345650e-01,
                            8.8302063039765474e-01, 9.7379901770829278e+00});
            case B -> new BtProblem(cls, 102, 200, 0.0003,
                    new double[] {1.4233597229287254e+03, 9.9330522590150238e+01, 3.5646025644535285e+02,
                            3.2485447959084092e+02, 3.2707541254659363e+03},
                    new double[] {5.2969847140936856e+01, 4.4632896115670668e+00, 1.3122573342210174e+01,
                            1.2006925323559144e+01, 1.2459576151035986e+02});
            case C -> new BtProblem(cls, 162, 200, 0.0001,
                    new double[] {0.62398116551764615e+04, 0.50793239190423964e+03, 0.15423530093013596e+04,
                            0.13302387929291190e+04, 0.11604087428436455e+05},
                    new double[] {0.16462008369091265e+03, 0.11497107903824313e+02, 0.41207446207461508e+02,
                            0.37087651059694167e+02, 0.36211053051841265e+03});
        };
    }

    /** NPB BT's operation count for the whole run, in millions, over {@code seconds}. */
    double mops(double seconds) {
        double n3 = (double) n * n * n;
        double navg = n;
        return 1.0e-6 * steps * (3478.8 * n3 - 17655.7 * navg * navg + 28023.7 * navg) / seconds;
    }
}
