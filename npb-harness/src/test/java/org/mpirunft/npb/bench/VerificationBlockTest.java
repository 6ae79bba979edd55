package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerificationBlockTest {
    /** The end of a CG class B run's log, as npb-bench wrote it (a throughput run's part writes mixed in). */
    static final String CG_LOG = """

             NAS Parallel Benchmarks (mpirun-ft Java) - CG Benchmark

             Size: 75000
             Iterations: 75

               iteration           ||r||                 zeta
                    1       2.28016511762002e-13    59.9994751578754
            [npb] iteration 0 of 75
                   75       8.64524475698613e-16    22.7127454826317
            [npb] iteration 74 of 75
             Benchmark completed
             Zeta is     2.2712745482632e+01
            [npb] part write rank=2 epoch=1 op=write bytes=9 start_us=1 data_ms=1.0 total_ms=2.0 cpu_ms=0.5 runq_ms=0.1 root=/local
             Error is    7.3896444519050e-13 (tolerance 1e-10)
             VERIFICATION SUCCESSFUL

             CG Benchmark Completed.
            [mpirun-ft] INFO: warm spare 4: released; idle_s=24.8 idle_cpu_s=0.020
             Class           =                        B
             Size            =                    75000
             Iterations      =                       75
             Time in seconds =                    23.68
             Total processes =                        4
             Mop/s total     =                  2310.57
             Mop/s/process   =                   577.64
             Operation type  =           floating point
             Verification    =               SUCCESSFUL
            [npb] checkpoints taken=0 last_bytes=0 last_stall_ms=0.000 total_stall_ms=0.000 last_write_ms=0.000 last_epoch=0
            [mpirun-ft] finished job=cg-B-n4-baseline-r1-bench732
            """;

    static final List<String> CG_BLOCK = List.of(
            " Benchmark completed",
            " Zeta is     2.2712745482632e+01",
            " Error is    7.3896444519050e-13 (tolerance 1e-10)",
            " VERIFICATION SUCCESSFUL",
            "",
            " CG Benchmark Completed.",
            " Class           =                        B",
            " Size            =                    75000",
            " Iterations      =                       75",
            " Time in seconds =                    23.68",
            " Total processes =                        4",
            " Mop/s total     =                  2310.57",
            " Mop/s/process   =                   577.64",
            " Operation type  =           floating point",
            " Verification    =               SUCCESSFUL");

    static NpbOutput output(String log) {
        return new NpbOutput(log.lines().map(line -> new TimedLine(Instant.EPOCH, line)).toList());
    }

    @Test
    void copiesNpbsReportFromAfterTheLastIterationToItsVerificationLineAndNoOtherProcesssLines() {
        VerificationBlock block = VerificationBlock.of(output(CG_LOG));
        assertEquals(CG_BLOCK, block.lines());
        assertTrue(block.verified());
        assertTrue(block.present());
    }

    @Test
    void keepsAFailedReportAndSaysItIsNotVerified() {
        String log = """
                [npb] iteration 19 of 20
                 L2 Norm is   1.9005644013552e-06
                 Reference    1.8005644013550e-06
                 VERIFICATION FAILED

                 MG Benchmark Completed.
                 Class           =                        B
                 Verification    =             UNSUCCESSFUL
                """;
        VerificationBlock block = VerificationBlock.of(output(log));
        assertEquals(List.of(" L2 Norm is   1.9005644013552e-06", " Reference    1.8005644013550e-06", " VERIFICATION FAILED", "",
                " MG Benchmark Completed.", " Class           =                        B",
                " Verification    =             UNSUCCESSFUL"), block.lines());
        assertFalse(block.verified());
    }

    @Test
    void findsNoBlockInARunThatEndedBeforeItsReport() {
        VerificationBlock block = VerificationBlock.of(output("""

                 NAS Parallel Benchmarks (mpirun-ft Java) - SP Benchmark

                [npb] iteration 0 of 400
                [mpirun-ft] ERROR: mpirun exited 75
                """));
        assertFalse(block.present());
        assertFalse(block.verified());
    }

    @Test
    void startsAfterTheLastBannerWhenNoIterationFollowsIt() {
        VerificationBlock block = VerificationBlock.of(output("""
                [npb] iteration 3 of 10
                [mpirun-ft] relaunching the job

                 NAS Parallel Benchmarks (mpirun-ft Java) - EP Benchmark

                 EP Benchmark Results:
                 VERIFICATION SUCCESSFUL
                 Verification    =               SUCCESSFUL
                """));
        assertEquals(List.of(" EP Benchmark Results:", " VERIFICATION SUCCESSFUL", " Verification    =               SUCCESSFUL"),
                block.lines());
        assertTrue(block.verified());
    }
}
