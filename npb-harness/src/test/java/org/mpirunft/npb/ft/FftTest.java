package org.mpirunft.npb.ft;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The batched FFT against the definition of the DFT. */
class FftTest {
    @ParameterizedTest(name = "n={0}, batch={1}, inverse={2}")
    @CsvSource({"1,1,false", "2,3,false", "4,2,true", "8,1,false", "16,4,true", "32,3,false", "64,16,false", "128,2,true", "512,1,false"})
    void matchesTheDefinition(int n, int batch, boolean inverse) {
        Random random = new Random(n * 31L + batch);
        double[] data = new double[2 * n * batch];
        for (int i = 0; i < data.length; i++) {
            data[i] = random.nextDouble() - 0.5;
        }
        double[] input = data.clone();
        double[] result = new Fft(n).transform(data, new double[data.length], batch, inverse);
        double sign = inverse ? 1 : -1;
        for (int b = 0; b < batch; b++) {
            for (int k = 0; k < n; k++) {
                double re = 0;
                double im = 0;
                for (int j = 0; j < n; j++) {
                    double angle = sign * 2 * Math.PI * ((long) j * k % n) / n;
                    double xr = input[2 * (j * batch + b)];
                    double xi = input[2 * (j * batch + b) + 1];
                    re += xr * Math.cos(angle) - xi * Math.sin(angle);
                    im += xr * Math.sin(angle) + xi * Math.cos(angle);
                }
                assertEquals(re, result[2 * (k * batch + b)], 1e-12 * n, "re of X[" + k + "] of sequence " + b);
                assertEquals(im, result[2 * (k * batch + b) + 1], 1e-12 * n, "im of X[" + k + "] of sequence " + b);
            }
        }
    }
}
