package org.mpirunft.npb.is;

import java.util.Locale;
import mpi.MPI;
import mpi.MPIException;
import org.mpirunft.bridge.FtRank;
import org.mpirunft.npb.KernelResult;
import org.mpirunft.npb.NpbClass;
import org.mpirunft.npb.Progress;
import org.mpirunft.npb.Randlc;
import org.mpirunft.npb.RepeatableKernel;

/**
 * IS, the integer sort kernel (NAS RNR-94-007): ranks 2^k small integer keys ten times. Before
 * each ranking, iteration i (1-based) sets key i to i and key i + 10 to maxKey - i, and the
 * ranks of five keys at fixed indices are checked against published values shifted by
 * per-class offsets (partial verification). After the last ranking, every key placed at its
 * rank must give a sorted sequence (full verification). Passing takes all 5 x 10 partial checks
 * and the full one.
 *
 * <p>Keys are generated as in the specification: each is floor(maxKey / 4 * (r1 + r2 + r3 + r4))
 * of four consecutive values of the generator (seed 314159265, multiplier 5^13). Rank r holds
 * keys r * n / ranks to (r + 1) * n / ranks - 1 and generates them itself by jumping the
 * generator ahead 4 * r * n / ranks steps: local and deterministic, as a replacement rank needs.
 *
 * <p>State: this rank's keys (the iterations modify them) and the verification tally.
 */
public final class IsKernel implements RepeatableKernel {
    static final int ITERATIONS = 10;
    static final long SEED = 314159265L;
    /** State layout of the tally: partial checks passed on this rank, full verification passed. */
    private static final int PARTIAL = 0;
    private static final int FULL = 1;

    /** One class: sizes as powers of two, and the five test indices with their published ranks. */
    record Problem(NpbClass cls, int totalKeysLog2, int maxKeyLog2, int bucketsLog2, int[] testIndex, int[] testRank) {
        static Problem of(NpbClass cls) {
            return switch (cls) {
                case S -> new Problem(cls, 16, 11, 9, new int[] {48427, 17148, 23627, 62548, 4431},
                        new int[] {0, 18, 346, 64917, 65463});
                case W -> new Problem(cls, 20, 16, 10, new int[] {357773, 934767, 875723, 898999, 404505},
                        new int[] {1249, 11698, 1039987, 1043896, 1048018});
                case A -> new Problem(cls, 23, 19, 10, new int[] {2112377, 662041, 5336171, 3642833, 4250760},
                        new int[] {104, 17523, 123928, 8288932, 8388264});
                case B -> new Problem(cls, 25, 21, 10, new int[] {41869, 812306, 5102857, 18232239, 26860214},
                        new int[] {33422937, 10244, 59149, 33135281, 99});
                case C -> new Problem(cls, 27, 23, 10, new int[] {44172927, 72999161, 74326391, 129606274, 21736814},
                        new int[] {61147, 882988, 266290, 133997595, 133525895});
            };
        }

        long totalKeys() {
            return 1L << totalKeysLog2;
        }

        int maxKey() {
            return 1 << maxKeyLog2;
        }

        /** The rank test key {@code t} must have at 1-based {@code iteration}: the published rank, shifted per class. */
        long expectedRank(int t, int iteration) {
            int shift = switch (cls) {
                case S, C -> t <= 2 ? iteration : -iteration;
                case W -> t < 2 ? iteration - 2 : -iteration;
                case A -> t <= 2 ? iteration - 1 : -(iteration - 1);
                case B -> t == 1 || t == 2 || t == 4 ? iteration : -iteration;
            };
            return testRank[t] + (long) shift;
        }
    }

    @Override
    public String name() {
        return "IS";
    }

    @Override
    public long iterations(NpbClass cls, int ranks) {
        return ITERATIONS;
    }

    @Override
    public String unsupported(NpbClass cls, int ranks) {
        if (Integer.bitCount(ranks) != 1) {
            return "IS runs on a power-of-two number of ranks (1, 2, 4, 8, ...), as NPB defines it";
        }
        int buckets = 1 << Problem.of(cls).bucketsLog2();
        return ranks > buckets ? "IS class " + cls + " has only " + buckets + " buckets to share out" : null;
    }

    /**
     * Repetition r (0-based) is FtRank iterations 10 r to 10 r + 9; its first one generates the
     * keys afresh (not timed, as NPB does not time the generation), its last one runs the full
     * verification. The tally adds up over repetitions.
     */
    @Override
    public KernelResult run(FtRank ft, NpbClass cls, int repeats) throws MPIException {
        Problem problem = Problem.of(cls);
        int ranks = ft.world().getSize();
        int rank = ft.rank();
        int keysPerRank = (int) (problem.totalKeys() / ranks);
        long firstKey = (long) rank * keysPerRank;
        long iterations = (long) ITERATIONS * repeats;

        int[] keys = new int[keysPerRank];
        generate(keys, firstKey, problem.maxKey());
        long[] tally = new long[2];
        ft.state().register("is.keys", keys).register("is.tally", tally);
        KeyRanking ranking = new KeyRanking(ranks, rank, keysPerRank, problem.maxKeyLog2(), problem.bucketsLog2());
        if (rank == 0 && !ft.isReplacement()) {
            System.out.printf(Locale.ROOT, " Size:  %d  (class %s)%n Iterations:  %d%s%n Number of processes:  %d%n%n",
                    problem.totalKeys(), cls, ITERATIONS, repeats > 1 ? " (repeated " + repeats + " times)" : "", ranks);
        }

        long[] untimedNanos = new long[1];
        long start = System.nanoTime();
        ft.run(0, iterations, (world, it) -> {
            int iteration = (int) (it % ITERATIONS) + 1;
            if (iteration == 1 && it > 0) {
                long generation = System.nanoTime();
                generate(keys, firstKey, problem.maxKey());
                untimedNanos[0] += System.nanoTime() - generation;
            }
            modify(keys, firstKey, iteration, problem.maxKey());
            ranking.rank(world, keys, problem.testIndex());
            for (int t = 0; t < KeyRanking.TESTS; t++) {
                long actual = ranking.testRank(t);
                if (actual < 0) {
                    continue;
                }
                long expected = problem.expectedRank(t, iteration);
                if (actual == expected) {
                    tally[PARTIAL]++;
                } else {
                    System.out.printf("[npb] IS rank %d: failed partial verification: iteration %d, test key %d has rank %d, expected %d%n",
                            rank, iteration, t, actual, expected);
                }
            }
            if (iteration == ITERATIONS) {
                long verifyStart = System.nanoTime();
                tally[FULL] += ranking.fullyVerified(world) ? 1 : 0;
                untimedNanos[0] += System.nanoTime() - verifyStart;
            }
            Progress.iterationDone(world, it, iterations);
        });
        long[] partial = new long[1];
        ft.world().allReduce(new long[] {tally[PARTIAL]}, partial, 1, MPI.LONG, MPI.SUM);
        double seconds = (System.nanoTime() - start - untimedNanos[0]) / 1e9;

        long passed = partial[0] + tally[FULL];
        long required = ((long) KeyRanking.TESTS * ITERATIONS + 1) * repeats;
        boolean verified = passed == required;
        String detail = String.format(Locale.ROOT, " Partial verification: %d of %d test ranks correct%n Full verification: %s%n",
                partial[0], (long) KeyRanking.TESTS * iterations, tally[FULL] == repeats ? "keys sorted"
                        : repeats > 1 ? "FAILED (" + tally[FULL] + " of " + repeats + " repetitions sorted)" : "FAILED");
        return new KernelResult("IS", cls, Long.toString(problem.totalKeys()), iterations, ranks, seconds,
                iterations * (double) problem.totalKeys() / seconds / 1e6, "keys ranked", verified, detail);
    }

    /** Keys {@code firstKey} to {@code firstKey + keys.length - 1} of the specification's sequence. */
    static void generate(int[] keys, long firstKey, int maxKey) {
        Randlc generator = new Randlc(Randlc.skip(SEED, Randlc.A, 4 * firstKey), Randlc.A);
        double scale = maxKey / 4;
        double[] uniforms = new double[4 * 1024];
        for (int done = 0; done < keys.length; ) {
            int batch = Math.min(1024, keys.length - done);
            generator.fill(uniforms, 0, 4 * batch);
            for (int i = 0; i < batch; i++) {
                double x = uniforms[4 * i];
                x += uniforms[4 * i + 1];
                x += uniforms[4 * i + 2];
                x += uniforms[4 * i + 3];
                keys[done + i] = (int) (scale * x);
            }
            done += batch;
        }
    }

    /** Iteration i's change to the keys: key i becomes i, key i + 10 becomes maxKey - i, where they are local. */
    private static void modify(int[] keys, long firstKey, int iteration, int maxKey) {
        long low = iteration - firstKey;
        if (low >= 0 && low < keys.length) {
            keys[(int) low] = iteration;
        }
        long high = iteration + ITERATIONS - firstKey;
        if (high >= 0 && high < keys.length) {
            keys[(int) high] = maxKey - iteration;
        }
    }
}
