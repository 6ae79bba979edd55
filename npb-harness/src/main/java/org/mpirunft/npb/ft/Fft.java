package org.mpirunft.npb.ft;

/**
 * Unnormalized complex FFTs of one power-of-two length, many at once.
 *
 * <p>The sequences are interleaved element-major: element e of sequence b is the complex
 * number at doubles {@code 2 (e batch + b)} and {@code 2 (e batch + b) + 1}. A gather from a
 * 3D array puts {@code batch} neighbouring columns side by side like this, so every butterfly
 * loop runs over contiguous memory whatever the stride of the columns in the array.
 *
 * <p>The algorithm is Stockham's self-sorting form (decimation in frequency): passes that each
 * read one buffer and write the other, with no bit reversal. A radix-4 pass splits a
 * transform of length 4m into four of length m: with a, b, c, d = x[j], x[j + m], x[j + 2m],
 * x[j + 3m], it writes y[4j + t] = w^(jt) (sum over r of x[j + rm] i^(-+rt)) for t = 0..3,
 * where w = exp(-+2 pi i / 4m), and it does so for runs of s = n / 4m independent elements
 * at a time. Radix-4 passes run while the length is at least 4; an odd power of two ends with
 * one radix-2 pass, whose twiddle factors are all 1. The forward transform uses
 * exp(-2 pi i jk / n), the inverse exp(+2 pi i jk / n); neither divides by n.
 */
final class Fft {
    private final int n;
    /** cos and sin of 2 pi k / n, k < n (a radix-4 pass needs angles up to 3/4 of the circle). */
    private final double[] cos;
    private final double[] sin;

    Fft(int n) {
        if (Integer.bitCount(n) != 1) {
            throw new IllegalArgumentException("FFT length must be a power of two, got " + n);
        }
        this.n = n;
        this.cos = new double[n];
        this.sin = new double[n];
        for (int k = 0; k < n; k++) {
            double angle = 2.0 * Math.PI * k / n;
            cos[k] = Math.cos(angle);
            sin[k] = Math.sin(angle);
        }
    }

    int length() {
        return n;
    }

    /**
     * Transforms {@code batch} sequences held in {@code data}, using {@code work} (as large)
     * as the other buffer; returns whichever of the two holds the result.
     */
    double[] transform(double[] data, double[] work, int batch, boolean inverse) {
        double[] x = data;
        double[] y = work;
        double sign = inverse ? 1.0 : -1.0;
        int run = 2 * batch;
        int s = 1;
        int m = n / 4;
        for (; m >= 1; m /= 4, s *= 4) {
            radix4(x, y, m, s * run, s, sign);
            double[] t = x;
            x = y;
            y = t;
        }
        if (s < n) {
            radix2(x, y, n / 2 * run);
            return y;
        }
        return x;
    }

    /** One radix-4 pass: four sub-transforms of length m, runs of {@code length} doubles. */
    private void radix4(double[] x, double[] y, int m, int length, int s, double sign) {
        for (int j = 0; j < m; j++) {
            double w1r = cos[j * s];
            double w1i = sign * sin[j * s];
            double w2r = cos[2 * j * s];
            double w2i = sign * sin[2 * j * s];
            double w3r = cos[3 * j * s];
            double w3i = sign * sin[3 * j * s];
            int a = j * length;
            int b = a + m * length;
            int c = b + m * length;
            int d = c + m * length;
            int o0 = 4 * j * length;
            int o1 = o0 + length;
            int o2 = o1 + length;
            int o3 = o2 + length;
            for (int e = 0; e < length; e += 2) {
                double ar = x[a + e];
                double ai = x[a + e + 1];
                double br = x[b + e];
                double bi = x[b + e + 1];
                double cr = x[c + e];
                double ci = x[c + e + 1];
                double dr = x[d + e];
                double di = x[d + e + 1];
                double sumACr = ar + cr;
                double sumACi = ai + ci;
                double difACr = ar - cr;
                double difACi = ai - ci;
                double sumBDr = br + dr;
                double sumBDi = bi + di;
                // (b - d) times i^(-+1): -i (b - d) forward, +i (b - d) inverse.
                double rotBDr = -sign * (bi - di);
                double rotBDi = sign * (br - dr);
                y[o0 + e] = sumACr + sumBDr;
                y[o0 + e + 1] = sumACi + sumBDi;
                double t1r = difACr + rotBDr;
                double t1i = difACi + rotBDi;
                y[o1 + e] = t1r * w1r - t1i * w1i;
                y[o1 + e + 1] = t1r * w1i + t1i * w1r;
                double t2r = sumACr - sumBDr;
                double t2i = sumACi - sumBDi;
                y[o2 + e] = t2r * w2r - t2i * w2i;
                y[o2 + e + 1] = t2r * w2i + t2i * w2r;
                double t3r = difACr - rotBDr;
                double t3i = difACi - rotBDi;
                y[o3 + e] = t3r * w3r - t3i * w3i;
                y[o3 + e + 1] = t3r * w3i + t3i * w3r;
            }
        }
    }

    /** The last pass of an odd power of two: two transforms of length 1 over runs of {@code length} doubles. */
    private static void radix2(double[] x, double[] y, int length) {
        for (int e = 0; e < length; e += 2) {
            double ar = x[e];
            double ai = x[e + 1];
            double br = x[length + e];
            double bi = x[length + e + 1];
            y[e] = ar + br;
            y[e + 1] = ai + bi;
            y[length + e] = ar - br;
            y[length + e + 1] = ai - bi;
        }
    }
}
