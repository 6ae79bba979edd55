package org.mpirunft.npb;

import java.util.Locale;

/**
 * NPB's verification of the pseudo-applications BT, LU and SP: every norm within
 * {@link #EPSILON} of its class's reference, relative, and the block NPB's verify prints (one
 * line per norm: value, reference, relative difference; "FAILURE:" on a line outside). One
 * definition for the three, so that they verify and report alike.
 */
public final class NormVerification {
    /** NPB's tolerance for BT, LU and SP, relative to the reference. */
    public static final double EPSILON = 1.0e-8;

    private final StringBuilder detail = new StringBuilder();
    private boolean verified = true;
    private int compared;

    public NormVerification(NpbClass cls) {
        detail.append(" Verification being performed for class ").append(cls).append('\n');
        detail.append(String.format(Locale.ROOT, " accuracy setting for epsilon = %20.13E%n", EPSILON));
    }

    /** Compares {@code values[i]} with {@code references[i]} under {@code title}, lines numbered from 1. */
    public NormVerification compare(String title, double[] values, double[] references) {
        if (values.length != references.length) {
            throw new IllegalArgumentException(title + ": " + values.length + " values for " + references.length + " references");
        }
        detail.append(' ').append(title).append('\n');
        for (int i = 0; i < values.length; i++) {
            line(String.format(Locale.ROOT, "%2d", i + 1), values[i], references[i]);
        }
        return this;
    }

    /** Compares one value (LU's surface integral) under {@code title}. */
    public NormVerification compare(String title, double value, double reference) {
        detail.append(' ').append(title).append('\n');
        line("  ", value, reference);
        return this;
    }

    private void line(String label, double value, double reference) {
        double difference = Math.abs((value - reference) / reference);
        // Written so that a NaN difference (a NaN norm) is outside the tolerance.
        boolean within = difference <= EPSILON;
        verified &= within;
        compared++;
        detail.append(String.format(Locale.ROOT, " %s %s%20.13E%20.13E%20.13E%n", within ? "        " : "FAILURE:", label, value,
                reference, difference));
    }

    /** True if every norm compared so far is within the tolerance (and at least one was compared). */
    public boolean verified() {
        return verified && compared > 0;
    }

    /** The report block, ending with NPB's verdict line. */
    public String detail() {
        return detail + (verified() ? " Verification Successful\n" : " Verification failed\n");
    }
}
