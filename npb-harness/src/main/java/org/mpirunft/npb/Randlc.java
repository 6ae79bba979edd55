package org.mpirunft.npb;

/**
 * NPB's pseudo-random generator: x(k+1) = a * x(k) mod 2^46, returned as x(k+1) / 2^46.
 * The specification computes it exactly in double precision by splitting into 23-bit halves;
 * the low 46 bits of a wrapping 64-bit product are the same exact value, so longs do it here.
 */
public final class Randlc {
    /** The multiplier every kernel uses, 5^13. */
    public static final long A = 1220703125L;
    static final long MASK = (1L << 46) - 1;
    static final double R46 = 0x1p-46;

    private final long multiplier;
    private long seed;

    public Randlc(long seed, long multiplier) {
        if (seed <= 0 || seed > MASK || multiplier <= 0 || multiplier > MASK) {
            throw new IllegalArgumentException("seed and multiplier must be in (0, 2^46), got " + seed + " and " + multiplier);
        }
        this.seed = seed;
        this.multiplier = multiplier;
    }

    /** randlc: advances the seed once and returns it scaled into (0, 1). */
    public double next() {
        seed = (seed * multiplier) & MASK;
        return seed * R46;
    }

    /** vranlc: the next {@code count} values into {@code out} from {@code offset}. */
    public void fill(double[] out, int offset, int count) {
        long x = seed;
        for (int i = 0; i < count; i++) {
            x = (x * multiplier) & MASK;
            out[offset + i] = x * R46;
        }
        seed = x;
    }

    public long seed() {
        return seed;
    }

    public void seed(long newSeed) {
        this.seed = newSeed;
    }

    /** a * b mod 2^46. */
    public static long multiply(long a, long b) {
        return (a * b) & MASK;
    }

    /** a^n mod 2^46, for jumping a generator ahead by n steps. */
    public static long power(long a, long n) {
        long result = 1;
        long base = a & MASK;
        for (long e = n; e > 0; e >>= 1) {
            if ((e & 1) != 0) {
                result = multiply(result, base);
            }
            base = multiply(base, base);
        }
        return result;
    }

    /** The seed after {@code steps} steps from {@code seed}: seed * a^steps mod 2^46. */
    public static long skip(long seed, long multiplier, long steps) {
        return multiply(seed, power(multiplier, steps));
    }

    /** A double seed from the specification (such as 314159265.0) as a long. */
    public static long seedOf(double specSeed) {
        return (long) specSeed;
    }
}
