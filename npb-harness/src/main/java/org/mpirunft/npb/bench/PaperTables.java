package org.mpirunft.npb.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import org.mpirunft.npb.NpbClass;

/**
 * The results beside the paper's, one row per kernel and one column pair per node count of the
 * paper (4, 8, 16): checkpoint sizes (its Table 1), one checkpoint's overhead and time (its
 * figures 5-9), pause and full restart (its figures 10-12). BT and SP run on 9 nodes where the
 * paper's column says 8 ({@link org.mpirunft.npb.Kernel#ranksNear}). Each cell is the largest
 * class that ran there, named when it is not C (a stand-in).
 */
final class PaperTables {
    private PaperTables() {
    }

    /** Nothing if no row ran on one of the paper's node counts. */
    static void render(StringBuilder md, List<Summary.Row> rows) {
        List<Summary.Row> mine = rows.stream().filter(r -> column(r.nodes()) >= 0 && (r.storage() == null || r.storage().isEmpty()))
                .toList();
        if (mine.isEmpty()) {
            return;
        }
        Set<String> kernels = new LinkedHashSet<>();
        mine.stream().map(Summary.Row::kernel).sorted().forEach(kernels::add);
        md.append("## Beside the paper: 4, 8 and 16 nodes\n\n");
        md.append("One row per kernel; for each of the paper's node counts, ours then the paper's. BT and SP need a square number ")
                .append("of ranks and ran on 9 nodes in the 8 column. Ours is class C where it fit this machine; a cell of another ")
                .append("class names it (it stands in, see the runs not made above). The paper's figures 5-12 are bar charts without ")
                .append("printed values; what its text says of them is quoted above each table. ")
                .append("Our sizes are the registered state; the paper's are BLCR process images (the whole process).\n\n");

        md.append("### Checkpoint size per rank, MB (paper: Table 1)\n\n");
        header(md, "ours MB", "paper MB");
        for (String kernel : kernels) {
            md.append("| ").append(kernel.toUpperCase(Locale.ROOT));
            for (int column = 0; column < PaperFigures.NODES.length; column++) {
                Optional<Summary.Row> row = pick(mine, kernel, column);
                md.append(" | ").append(cell(row, Summary.Row::checkpointMbPerRank, 2));
                Double paper = PaperFigures.checkpointMb(kernel, PaperFigures.NODES[column]);
                md.append(" | ").append(paper == null ? "not in the paper" : ReadmeReport.fmt(paper, 2));
            }
            md.append(" |\n");
        }
        md.append("\n### One checkpoint: overhead on the run and its time (paper: figures 5-9)\n\n");
        md.append("Overhead: the `one-checkpoint` run's NPB time over the baseline's, in %. Time: the checkpoint's commit in the ")
                .append("event log (first part on shared storage to the manifest), s; the rank's own compute stall is in the tables ")
                .append("below. The paper: \"below 10% of the run time for most kernels\", \"1-12 s per checkpoint except MG and FT\".\n\n");
        header(md, "overhead %", "commit s");
        for (String kernel : kernels) {
            md.append("| ").append(kernel.toUpperCase(Locale.ROOT));
            for (int column = 0; column < PaperFigures.NODES.length; column++) {
                Optional<Summary.Row> row = pick(mine, kernel, column);
                md.append(" | ").append(cell(row, Summary.Row::oneCheckpointOverheadPct, 1));
                md.append(" | ").append(cell(row, r -> r.commitMs() == null ? null : r.commitMs() / 1000, 2));
            }
            md.append(" |\n");
        }
        md.append("\n### Job pause against full restart, kill to back at work (paper: figures 10-12)\n\n");
        md.append("Pause: the warm spare takes the lost rank and the others roll back in place. Full restart: the job and its node ")
                .append("daemons restart from the checkpoint, as the paper's baseline rebooted LAM. Seconds, and pause / full restart ")
                .append("(computed from the two medians). The paper: pause and migration took ")
                .append(ReadmeReport.fmt(PaperFigures.PAUSE_RESTART_RATIO, 3))
                .append(" x a full restart on average, and saved the LAM reboot of ")
                .append(ReadmeReport.fmt(PaperFigures.RUNTIME_REBOOT_S[0], 2)).append(" / ")
                .append(ReadmeReport.fmt(PaperFigures.RUNTIME_REBOOT_S[1], 2)).append(" / ")
                .append(ReadmeReport.fmt(PaperFigures.RUNTIME_REBOOT_S[2], 2)).append(" s at 4 / 8 / 16 nodes.\n\n");
        md.append("| kernel");
        for (int nodes : PaperFigures.NODES) {
            md.append(" | pause s, ").append(nodes).append(" | full restart s, ").append(nodes).append(" | ratio, ").append(nodes);
        }
        md.append(" |\n|---").append("|---|---|---".repeat(PaperFigures.NODES.length)).append("|\n");
        for (String kernel : kernels) {
            md.append("| ").append(kernel.toUpperCase(Locale.ROOT));
            for (int column = 0; column < PaperFigures.NODES.length; column++) {
                Optional<Summary.Row> row = pick(mine, kernel, column);
                md.append(" | ").append(cell(row, r -> r.pauseRecoveryMs() == null ? null : r.pauseRecoveryMs() / 1000, 2));
                md.append(" | ").append(cell(row, r -> r.fullRestartRecoveryMs() == null ? null : r.fullRestartRecoveryMs() / 1000, 2));
                md.append(" | ").append(cell(row, Summary.Row::pauseFullRestartRatio, 3));
            }
            md.append(" |\n");
        }
        md.append("\n");
    }

    /** The paper's column (0, 1, 2 for 4, 8, 16 nodes) that a run on {@code nodes} nodes goes in; 9 goes in 8's; -1 for none. */
    static int column(int nodes) {
        int asPaper = nodes == 9 ? 8 : nodes;
        for (int i = 0; i < PaperFigures.NODES.length; i++) {
            if (PaperFigures.NODES[i] == asPaper) {
                return i;
            }
        }
        return -1;
    }

    /** The row of the largest class of {@code kernel} in {@code column}. */
    private static Optional<Summary.Row> pick(List<Summary.Row> rows, String kernel, int column) {
        return rows.stream().filter(r -> r.kernel().equals(kernel) && column(r.nodes()) == column)
                .max(Comparator.comparing(r -> NpbClass.parse(r.cls())));
    }

    private static String cell(Optional<Summary.Row> row, Function<Summary.Row, Double> value, int decimals) {
        if (row.isEmpty()) {
            return "not run";
        }
        Summary.Row r = row.get();
        List<String> notes = new ArrayList<>();
        if (!r.cls().equals("C")) {
            notes.add("class " + r.cls());
        }
        if (r.nodes() == 9) {
            notes.add("9 nodes");
        }
        return ReadmeReport.fmt(value.apply(r), decimals) + (notes.isEmpty() ? "" : " (" + String.join(", ", notes) + ")");
    }

    private static void header(StringBuilder md, String ours, String paper) {
        md.append("| kernel");
        for (int nodes : PaperFigures.NODES) {
            md.append(" | ").append(ours).append(", ").append(nodes).append(" | ").append(paper).append(", ").append(nodes);
        }
        md.append(" |\n|---").append("|---|---".repeat(PaperFigures.NODES.length)).append("|\n");
    }
}
