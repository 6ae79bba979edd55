package org.mpirunft.npb.bench;

import static org.mpirunft.npb.bench.ReadmeReport.fmt;
import static org.mpirunft.npb.bench.ReadmeReport.size;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The README's section on transparent mode ({@link ReadmeReport} places it): the
 * {@code transparent} variant's CRIU images, dumps, stall and restores beside the {@code pause}
 * variant's rank library parts, commits and state loads. It is built from the runs, not from
 * the summary's rows, which hold no transparent-mode figures.
 */
final class TransparentReport {
    private TransparentReport() {
    }

    /**
     * The {@code transparent} variant beside the {@code pause} variant's rank library checkpoints,
     * per kernel, class and node count: one run of each, the first that counts of each (medians
     * over nodes within a run).
     */
    static void render(StringBuilder md, List<RunResult> runs) {
        List<RunResult> transparent = runs.stream().filter(r -> r.counts() && r.transparent() != null).toList();
        if (transparent.isEmpty()) {
            return;
        }
        md.append("## Transparent mode against the rank library's checkpoints\n\n");
        md.append("The `transparent` run is the `pause` run's kernel, class, node count and failure (rank ")
                .append("2's node killed after half the iterations and a committed checkpoint) with `mpirun-ft --transparent`: the ")
                .append("kernel runs as any MPI program (its rank library gets no daemon and takes no checkpoint), CRIU dumps every ")
                .append("node's part of the job (Open MPI's node daemon and the rank's JVM) every ").append(LaunchCommand.TRANSPARENT_INTERVAL)
                .append(", and the restore brings every node's part back, the lost node's on the spare. Per rank: a node's part ")
                .append("holds one rank and its node daemon. Image MB is the restored epoch's part per rank node (median); dump ")
                .append("ms is CRIU's dump of a part, the part frozen (median over nodes); stall ms is the job's stall per ")
                .append("checkpoint, every node locked from the first dump to the last (median over epochs); restore ms is a ")
                .append("node's restore step (median over nodes, the spare's beside it). The rank library's part MB is its ")
                .append("manifest's part per rank; its checkpoint ms is the event log's commit time (rank 0's stall and its ")
                .append("write); its state load ms is the lost rank's replacement's read. Recovery is kill to the first ")
                .append("iteration completed after it, as the harness saw it. All measured, none computed.\n\n");
        md.append("| kernel | class | nodes | transparent image MB/rank | dump ms/rank | stall ms | restore ms/rank | spare's restore ms "
                + "| stop ms | transparent recovery ms | rank library part MB/rank | checkpoint ms | state load ms | pause recovery ms |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (RunResult t : transparent) {
            Recoveries.Transparent tr = t.transparent();
            RunResult pause = runs.stream().filter(r -> r.counts() && r.variant().equals(Variant.PAUSE.label())
                    && r.kernel().equals(t.kernel()) && r.cls().equals(t.cls()) && r.nodes() == t.nodes()).findFirst().orElse(null);
            Double imageMb = Medians.of(tr.imageBytes().values().stream().map(b -> b / 1e6).toList());
            String spare = tr.onto().values().stream().findFirst().orElse(null);
            Double spareRestore = spare == null ? null : tr.restoreMs().get(spare);
            Double restore = Medians.of(tr.restoreMs().entrySet().stream().filter(e -> !e.getKey().equals(spare)
                    && !e.getKey().equals(BenchCluster.HEAD)).map(Map.Entry::getValue).toList());
            md.append("| ").append(t.kernel().toUpperCase(Locale.ROOT)).append(" | ").append(t.cls()).append(" | ").append(t.nodes())
                    .append(" | ").append(size(imageMb)).append(" | ").append(fmt(Medians.of(List.copyOf(tr.dumpMs().values())), 0))
                    .append(" | ").append(fmt(tr.stallMs(), 0)).append(" | ").append(fmt(restore, 0)).append(" | ")
                    .append(fmt(spareRestore, 0)).append(" | ").append(fmt(tr.stopMs(), 0)).append(" | ").append(fmt(tr.recoveryMs(), 0))
                    .append(" | ").append(pause == null ? "n/a" : size(pause.partMegabytes()))
                    .append(" | ").append(pause == null ? "n/a" : fmt(pause.commitMs(), 0))
                    .append(" | ").append(pause == null || pause.pause() == null ? "n/a" : fmt(pause.pause().stateLoadMs(), 0))
                    .append(" | ").append(pause == null || pause.pause() == null ? "n/a" : fmt(pause.pause().recoveryMs(), 0)).append(" |\n");
        }
        md.append("\nEach run's NPB verification lines are in the evidence file, `" + VerificationEvidence.FILE + "`; its log and event log ")
                .append("are kept on disk under `runs/`, not in git. The images ")
                .append("themselves are deleted after each run, as the rank library's parts are.\n\n");
    }
}
