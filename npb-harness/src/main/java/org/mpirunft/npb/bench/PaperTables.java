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

    /** The rows that go beside the paper's: on one of its node counts, with the default storage. */
    static List<Summary.Row> rowsBeside(List<Summary.Row> rows) {
        return rows.stream().filter(r -> column(r.nodes()) >= 0 && (r.storage() == null || r.storage().isEmpty())).toList();
    }

    /** Their kernels, in name order. */
    static Set<String> kernels(List<Summary.Row> mine) {
        Set<String> kernels = new LinkedHashSet<>();
        mine.stream().map(Summary.Row::kernel).sorted().forEach(kernels::add);
        return kernels;
    }

    /** Nothing if no row ran on one of the paper's node counts. */
    static void render(StringBuilder md, List<Summary.Row> rows) {
        List<Summary.Row> mine = rowsBeside(rows);
        if (mine.isEmpty()) {
            return;
        }
        Set<String> kernels = kernels(mine);
        md.append("## Beside the paper: 4, 8 and 16 nodes\n\n");
        md.append("One row per kernel; for each of the paper's node counts, ours then the paper's. BT and SP need a square number ")
                .append("of ranks and ran on 9 nodes in the 8 column. Ours is class C where it fit this machine; a cell of another ")
                .append("class names it (it stands in, see the runs not made above). The paper's figures 5-12 are bar charts without ")
                .append("printed values; what its text says of them is quoted above each table. ")
                .append("Our sizes are the registered state; the paper's are BLCR process images (the whole process).\n\n");

        md.append("### Checkpoint size per rank, MB (paper: Table 1)\n\n");
        header(md, "ours MB", "paper MB");
        kernelRows(md, kernels, mine, (kernel, column, row) -> {
            Double paper = PaperFigures.checkpointMb(kernel, PaperFigures.NODES[column]);
            return List.of(cell(row, Summary.Row::checkpointMbPerRank, 2), paper == null ? "not in the paper" : ReadmeReport.fmt(paper, 2));
        });
        md.append("\n### One checkpoint: overhead on the run and its time (paper: figures 5-9)\n\n");
        md.append("Overhead: the `one-checkpoint` run's NPB time over the baseline's, in %. Time: the checkpoint's time as the ")
                .append("event log records it at the commit (rank 0's compute stall plus its part's write, local then shared), s; ")
                .append("the stall alone is in the tables below. The paper: \"below 10% of the run time for most kernels\", \"1-12 s per checkpoint except MG and FT\".\n\n");
        header(md, "overhead %", "time s");
        kernelRows(md, kernels, mine, (kernel, column, row) -> List.of(
                cell(row, Summary.Row::oneCheckpointOverheadPct, 1),
                cell(row, r -> r.commitMs() == null ? null : r.commitMs() / 1000, 2)));
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
        kernelRows(md, kernels, mine, (kernel, column, row) -> List.of(
                cell(row, r -> r.pauseRecoveryMs() == null ? null : r.pauseRecoveryMs() / 1000, 2),
                cell(row, r -> r.fullRestartRecoveryMs() == null ? null : r.fullRestartRecoveryMs() / 1000, 2),
                cell(row, Summary.Row::pauseFullRestartRatio, 3)));
        md.append("\n");
        differences(md, mine);
    }

    /**
     * Where ours differ from the paper's and why: the setups differ (what a checkpoint holds, where it
     * goes, what a pause starts, the machine), so the figures are set side by side, not expected to
     * match. The ranges are computed from the rows above.
     */
    private static void differences(StringBuilder md, List<Summary.Row> mine) {
        md.append("### Where ours differ from the paper, and why\n\n");
        List<String> sizeRatios = new ArrayList<>();
        for (String kernel : kernels(mine)) {
            List<Double> ratios = new ArrayList<>();
            for (Summary.Row r : mine) {
                // Every row here has a column (rowsBeside): its node count as the paper's, 9 as 8.
                Double paper = PaperFigures.checkpointMb(kernel, PaperFigures.NODES[column(r.nodes())]);
                if (r.kernel().equals(kernel) && paper != null && r.cls().equals("C") && r.checkpointMbPerRank() != null
                        && r.checkpointMbPerRank() > 0) {
                    ratios.add(paper / r.checkpointMbPerRank());
                }
            }
            if (!ratios.isEmpty()) {
                double max = ratios.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
                sizeRatios.add(range(kernel.toUpperCase(Locale.ROOT) + " ", ratios, max >= 100 ? 0 : 1, "", ""));
            }
        }
        md.append("- **Checkpoint size.** Ours is the state the program registers (BT, LU and SP their solution u, MG u and v, CG its ")
                .append("vector x, FT its spectrum, EP its sums), which is enough to go on from that iteration: work arrays are ")
                .append("recomputed, and CG builds its matrix again from its seed. The paper's is a BLCR image of the whole ")
                .append("process: every array, the heap, the libraries.")
                .append(sizeRatios.isEmpty() ? "" : " The paper's class C images over ours, per kernel (computed; a range over the node counts): "
                        + String.join(", ", sizeRatios) + ".")
                .append(" Where the state is the data (MG, FT) the two come closest; where it is a few vectors or sums (CG, EP) ")
                .append("the image is mostly the program. Both shrink about as 1 / nodes, since the data is divided among the ranks.\n");
        md.append("- **One checkpoint's overhead and time.** A rank stops computing only to copy its state in memory; the ")
                .append("writes to local disk and shared storage run in the background. BLCR stopped the process to write its ")
                .append("image to NFS over GigE. Our shared storage is a directory of this host, so the write lands in its page ")
                .append("cache and our checkpoint times")
                .append(range(" (", values(mine, r -> r.commitMs() == null ? null : r.commitMs() / 1000), 2, " s)", ""))
                .append(" understate a real cluster's; the stall does not depend on them. Our overheads")
                .append(range(" (", values(mine, Summary.Row::oneCheckpointOverheadPct), 1, " %)", ""))
                .append(" come from one run of each variant on 2 shared cores: within a few percent of zero, negative ones ")
                .append("included, they are run-to-run noise rather than a cost. The kernels with the most state per rank pay ")
                .append("the most, since their copy and background write compete with the ranks for the cores.\n");
        md.append("- **Pause against full restart.** The paper's pause moved the failed process's image over NFS to a ")
                .append("spare and restarted it there, much as its full restart read every image, so the two took about as ")
                .append("long (").append(ReadmeReport.fmt(PaperFigures.PAUSE_RESTART_RATIO, 3)).append(" x); the pause saved only LAM's reboot. Here the spare is warm (its JVM and MPI are up ")
                .append("before the failure), the live ranks roll back from memory and only the replacement reads its part. ")
                .append("A full restart starts every node daemon, every rank's JVM and MPI again, and every rank reads its part")
                .append(range(": pause / full restart is ", values(mine, Summary.Row::pauseFullRestartRatio), 3, " (computed).", "."))
                .append(" Both include the first iteration after the recovery, a large part of the pause (the split is below).\n");
        md.append("- **The machine.** The paper had 16 nodes with 4 cores each, one process per node. Our simulated nodes ")
                .append("are network namespaces sharing this machine's 2 cores, so more nodes do not bring more compute: NPB's ")
                .append("time does not fall from 4 to 16 nodes as the paper's did, and every rank's share of the cores falls. ")
                .append("Runs that did not fit its memory or time are listed above with the reason.\n");
        md.append("- **The programs.** Ours are NPB 3.x in Java on Open MPI's Java bindings, with NPB's sizes, iterations and ")
                .append("verification. BT and SP divide the grid into z-slabs and LU into y-slabs, where NPB uses ")
                .append("multi-partitions and a 2-D grid of ranks, so messages differ in number and size; the arithmetic per ")
                .append("point and the verified norms are NPB's.\n\n");
    }

    private static List<Double> values(List<Summary.Row> rows, Function<Summary.Row, Double> value) {
        return rows.stream().filter(r -> r.cls().equals("C")).map(value).filter(v -> v != null && Double.isFinite(v)).toList();
    }

    /** {@code before} min-max {@code after}, or {@code none} if there are no values. */
    private static String range(String before, List<Double> values, int decimals, String after, String none) {
        if (values.isEmpty()) {
            return none;
        }
        double min = values.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
        double max = values.stream().mapToDouble(Double::doubleValue).max().orElseThrow();
        String low = ReadmeReport.fmt(min, decimals);
        String high = ReadmeReport.fmt(max, decimals);
        String span = low.equals(high) ? low : low + " to " + high;
        return before + span + after;
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
    static Optional<Summary.Row> pick(List<Summary.Row> rows, String kernel, int column) {
        return rows.stream().filter(r -> r.kernel().equals(kernel) && column(r.nodes()) == column)
                .max(Comparator.comparing(r -> NpbClass.parse(r.cls())));
    }

    /** The cells of one kernel in one of the paper's columns, from its run there ({@code row}, empty if none ran). */
    private interface ColumnCells {
        List<String> of(String kernel, int column, Optional<Summary.Row> row);
    }

    /** One table row per kernel: its name, then for each of the paper's node counts the cells {@code cells} gives. */
    private static void kernelRows(StringBuilder md, Set<String> kernels, List<Summary.Row> mine, ColumnCells cells) {
        for (String kernel : kernels) {
            md.append("| ").append(kernel.toUpperCase(Locale.ROOT));
            for (int column = 0; column < PaperFigures.NODES.length; column++) {
                for (String cell : cells.of(kernel, column, pick(mine, kernel, column))) {
                    md.append(" | ").append(cell);
                }
            }
            md.append(" |\n");
        }
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
