package org.mpirunft.npb;

/**
 * The outcome of one kernel run, as the NPB report states it.
 *
 * @param size       the problem size as NPB prints it ("1400", "64x64x64")
 * @param seconds    timed region only, as NPB times it
 * @param mops       total Mop/s by the kernel's own operation count
 * @param operation  NPB's "Operation type" line
 * @param detail     the verification values, one line each, for the report
 */
public record KernelResult(String kernel, NpbClass cls, String size, long iterations, int ranks, double seconds,
                           double mops, String operation, boolean verified, String detail) {
}
