package org.mpirunft.npb.bench;

import java.util.List;

/** Run results for tests of the pure parts. */
final class Runs {
    private Runs() {
    }

    static RunResult checkpointing(String variant, int repeat, double npbSeconds, long taken, double stallMs) {
        int every = variant.equals("baseline") ? 0 : variant.equals("one-checkpoint") ? 32 : 8;
        return new RunResult("ep", "S", 4, variant, repeat, "ep-S-n4-" + variant + "-r" + repeat, null, true, 0, npbSeconds + 8,
                npbSeconds, 64, every, taken, (int) taken, every == 0 ? List.of() : List.of(1_000_000L, 3_000_000L),
                every == 0 ? null : stallMs, every == 0 ? null : 20.0, every == 0 ? null : 50.0, null, null, null, null,
                "runs/x.log", every == 0 ? 12.0 + repeat : null, every == 0 ? 0.01 * repeat : null, "", null, null, null, null);
    }

    static RunResult pause(int repeat, double recoveryMs) {
        return new RunResult("ep", "S", 4, "pause", repeat, "p" + repeat, null, true, 0, 20, 8.0, 64, 8, 7L, 7,
                List.of(2_000_000L), 0.2, 20.0, 50.0, "node3", "2026-11-21T16:20:55.600Z",
                new Recoveries.Pause(500, 510.0, 20.0, 10, recoveryMs - 1500, 400, recoveryMs - 900, recoveryMs, 5, 40, List.of(2), 200.0, 30.0, 120_000_000L, "shared", 8000.0),
                null, "runs/p.log", null, null, "", null, null, null, null);
    }

    /** A pause run whose rollback made rank 0 redo {@code lost} iterations. */
    static RunResult pauseLosing(int repeat, double recoveryMs, long lost) {
        RunResult run = pause(repeat, recoveryMs);
        Recoveries.Pause p = run.pause();
        return new RunResult(run.kernel(), run.cls(), run.nodes(), run.variant(), run.repeat(), run.job(), null, true, 0, run.wallSeconds(),
                run.npbSeconds(), run.iterations(), run.checkpointEvery(), run.checkpointsTaken(), run.checkpointsCommitted(), run.partBytes(),
                run.stallMs(), run.writeMs(), run.commitMs(), run.failedNode(), run.injectedAt(),
                new Recoveries.Pause(p.detectionMs(), p.launcherDetectionMs(), p.decisionMs(), p.rollbackMs(), p.replacementStartMs(),
                        p.stateLoadMs(), p.rankTotalMs(), p.recoveryMs(), p.epoch(), p.iteration(), p.replaced(), p.setupMs(), p.transferMs(),
                        p.transferBytes(), p.transferFrom(), p.storageMBps(), lost),
                null, run.log(), null, null, "", null, null, null, null);
    }

    /** A migration run whose move took {@code totalMs} as the ranks timed it. */
    static RunResult migration(int repeat, double totalMs) {
        return new RunResult("ep", "S", 4, "migration", repeat, "m" + repeat, null, true, 0, 20, 10.1, 64, 8, 7L, 7,
                List.of(2_000_000L), 0.2, 20.0, 50.0, "node3", null, null, null, "runs/m.log", null, null, "", null, null, null, null,
                new Recoveries.Migration(150, 80, 12.5, 110, totalMs, 2_000_000L, 33, "warm", totalMs + 400), "2026-11-21T16:20:55.600Z");
    }

    static RunResult restart(int repeat, double recoveryMs) {
        return new RunResult("ep", "S", 4, "restart", repeat, "r" + repeat, null, true, 0, 25, 2.0, 64, 8, 3L, 7,
                List.of(2_000_000L), 0.2, 20.0, 50.0, "node2", "2026-11-21T16:21:27.100Z", null,
                new Recoveries.Restart(470, 50.0, 456.0, recoveryMs - 1000, recoveryMs, 40, null), "runs/r.log", null, null, "", null, null, null, null);
    }

    static RunResult fullRestart(int repeat, double recoveryMs, double daemonsMs) {
        return new RunResult("ep", "S", 4, "full-restart", repeat, "f" + repeat, null, true, 0, 30, 2.0, 64, 8, 3L, 7,
                List.of(2_000_000L), 0.2, 20.0, 50.0, "node3", "2026-11-21T16:22:27.100Z", null,
                new Recoveries.Restart(480, 50.0, 450.0, recoveryMs - 1000, recoveryMs, 40, daemonsMs), "runs/f.log", null, null, "", null, null, null, null);
    }

    static RunResult failed(String variant) {
        return new RunResult("ep", "S", 4, variant, 9, "bad", "NPB verification failed", false, 1, 3, 99.0, 64, 0, 0L, 0,
                List.of(), null, null, null, null, null, null, null, "runs/bad.log", null, null, "", null, null, null, null);
    }

    /** A periodic run (every 8 of 64 iterations, 7 checkpoints) with storage configuration {@code storage} and rank 0's byte totals. */
    static RunResult stored(String storage, int repeat, double npbSeconds, long totalSnapshotBytes, long totalPartBytes) {
        return new RunResult("ep", "S", 4, "periodic", repeat, "ep-S-n4-periodic-" + storage + "-r" + repeat, null, true, 0,
                npbSeconds + 8, npbSeconds, 64, 8, 7L, 7, List.of(1_000_000L), 0.3, 20.0, 50.0, null, null, null, null,
                "runs/s.log", null, null, storage, 4_000_000L, totalSnapshotBytes, totalPartBytes, null);
    }

    /** A daly run with storage configuration {@code storage}. */
    static RunResult daly(String storage, int repeat, double npbSeconds, DalyRun daly) {
        return new RunResult("ep", "S", 4, "daly", repeat, "ep-S-n4-daly-" + storage + "-r" + repeat, null, true, 0,
                npbSeconds + 8, npbSeconds, 64, 0, 5L, 5, List.of(1_000_000L), 0.3, 20.0, 50.0, null, null, null, null,
                "runs/d.log", null, null, storage, 4_000_000L, 20_000_000L, 20_000_000L, daly);
    }

    /** {@code run} as a run of another kernel, class and node count. */
    static RunResult as(RunResult run, String kernel, String cls, int nodes) {
        return new RunResult(kernel, cls, nodes, run.variant(), run.repeat(), kernel + "-" + cls + "-n" + nodes + "-" + run.job(), run.error(),
                run.verified(), run.exitCode(), run.wallSeconds(), run.npbSeconds(), run.iterations(), run.checkpointEvery(),
                run.checkpointsTaken(), run.checkpointsCommitted(), run.partBytes(), run.stallMs(), run.writeMs(), run.commitMs(),
                run.failedNode(), run.injectedAt(), run.pause(), run.restart(), run.log(), run.spareIdleS(), run.spareIdleCpuS(),
                run.storage(), run.snapshotBytes(), run.totalSnapshotBytes(), run.totalPartBytes(), run.daly());
    }
}
