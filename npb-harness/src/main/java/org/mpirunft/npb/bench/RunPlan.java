package org.mpirunft.npb.bench;

import java.util.Locale;
import org.mpirunft.npb.NpbClass;

/**
 * One run of the matrix and how it checkpoints and fails.
 *
 * <p>Checkpoints are counted in iterations ({@code MPIRUN_FT_CHECKPOINT_EVERY}), not seconds,
 * so every repeat checkpoints at the same safe points whatever the machine's load:
 * <ul>
 *   <li>{@code one-checkpoint}: every {@code ceil(N/2)} iterations of {@code N}, which is one
 *       checkpoint, at the safe point before iteration {@code ceil(N/2)};</li>
 *   <li>{@code periodic}, {@code pause}, {@code restart}, {@code full-restart}, {@code migration}: every {@code checkpointEvery}
 *       iterations, {@code floor((N-1)/checkpointEvery)} checkpoints in a failure-free run.</li>
 *   <li>{@code transparent}: the scheduler's time interval (CRIU knows no iterations); {@code checkpointEvery}
 *       only places the failure as for {@code pause}.</li>
 * </ul>
 * A failure run kills a node once rank 0 has completed iteration {@code failAfter} and at
 * least one checkpoint is committed; a {@code migration} run moves that node's rank off it then. The {@code daly} variant leaves the checkpoint times to
 * the scheduler ({@code --checkpoint-interval auto}) and its failures to a {@link FailureSchedule}.
 *
 * @param checkpointEvery 0 for no checkpoint, or for the scheduler's {@code auto} interval ({@code daly})
 * @param failAfter       -1 when no failure is injected
 * @param paceMillis      {@code NPB_PACE_MS} for the ranks: sleep after each iteration
 * @param storage         the storage configuration; with several, the baseline (which writes nothing) has the unnamed one
 */
public record RunPlan(String kernel, NpbClass cls, int nodes, Variant variant, int repeat, long iterations,
                      int checkpointEvery, long failAfter, long paceMillis, StorageConfig storage) {

    /** Plans {@code variant} with mpirun-ft's default storage. */
    public static RunPlan of(String kernel, NpbClass cls, int nodes, Variant variant, int repeat, long iterations,
                             int periodicEvery, double failAt, long paceMillis) {
        return of(kernel, cls, nodes, variant, repeat, iterations, periodicEvery, failAt, paceMillis, StorageConfig.DEFAULT);
    }

    /**
     * Plans {@code variant}; {@code periodicEvery} is the periodic interval in iterations (0: the
     * default, {@code max(1, N/8)}), {@code failAt} the fraction of the iterations after which
     * the failure comes.
     */
    public static RunPlan of(String kernel, NpbClass cls, int nodes, Variant variant, int repeat, long iterations,
                             int periodicEvery, double failAt, long paceMillis, StorageConfig storage) {
        String what = kernel + " class " + cls;
        int periodic = periodicEvery > 0 ? periodicEvery : (int) Math.max(1, iterations / 8);
        int every = switch (variant) {
            case BASELINE, DALY -> 0;
            case ONE_CHECKPOINT -> (int) ((iterations + 1) / 2);
            case PERIODIC, PAUSE, PAUSE_COLD, RESTART, FULL_RESTART, MIGRATION, TRANSPARENT -> periodic;
        };
        if (variant != Variant.BASELINE && !variant.autoInterval() && (iterations < 2 || every >= iterations)) {
            throw new BenchException.Usage("--checkpoint-every " + every + " leaves no checkpoint in the " + iterations
                    + " iterations of " + what);
        }
        long failAfter = -1;
        if (variant.actsOnce()) {
            // After the first checkpoint's safe point, and with at least one iteration left to do.
            failAfter = Math.min(iterations - 2, Math.max(every, (long) Math.floor(iterations * failAt)));
            if (failAfter < every) {
                throw new BenchException.Usage(what + " has too few iterations (" + iterations
                        + ") to fail after a checkpoint every " + every + " and before the end");
            }
        }
        return new RunPlan(kernel, cls, nodes, variant, repeat, iterations, every, failAfter, paceMillis, storage);
    }

    /** Checkpoints a failure-free run of this plan takes. */
    public long expectedCheckpoints() {
        return checkpointEvery == 0 ? 0 : (iterations - 1) / checkpointEvery;
    }

    /** A job id unique within one bench run, a valid {@code Names} name; a named storage configuration's label follows the variant. */
    public String job(String benchId) {
        String label = storage.label().isEmpty() ? "" : "-" + storage.label();
        return String.format(Locale.ROOT, "%s-%s-n%d-%s%s-r%d-%s", kernel, cls, nodes, variant.label(), label, repeat, benchId);
    }
}
