package org.mpirunft.npb.sim;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.mpirunft.common.Json;

/**
 * The measured inputs of the simulation, one {@link Kernel} per row of an {@code npb-bench}
 * {@code summary.csv}: the checkpoint cost and the recovery total of each {@link RecoveryMode}.
 * They are medians over that bench's repeats on its node count (4 nodes of a 2-core machine for
 * {@code results/bench-B-warm}); the simulation uses them unchanged at every node count, since no
 * measurement says how they grow with N.
 *
 * <p>The header names the columns (their order does not matter). The checkpoint cost is
 * {@code checkpoint_cost_s}, the run time one checkpoint cost the job; the file rounds it to
 * 3 decimals, so where it came from the compute stall ({@code checkpoint_cost_from} = stall: the
 * background write did not measurably slow the run) and reads 0.000, the unrounded
 * {@code stall_ms} it was taken from is used. A row lacking a needed value is left out and named in
 * {@link #leftOut}.
 *
 * @param source     the summary.csv read
 * @param producedBy the command that produced it (from the {@code results.json} beside it), or null
 * @param kernels    the rows that have every measure, in the file's order
 * @param leftOut    one line per row left out, saying what it lacks
 */
public record SimulationCosts(Path source, String producedBy, List<Kernel> kernels, List<String> leftOut) {
    static final String KERNEL = "kernel";
    static final String CLASS = "class";
    static final String NODES = "nodes";
    static final String COST = "checkpoint_cost_s";
    static final String COST_FROM = "checkpoint_cost_from";
    static final String STALL = "stall_ms";
    static final String STORAGE = "storage";

    public SimulationCosts {
        kernels = List.copyOf(kernels);
        leftOut = List.copyOf(leftOut);
    }

    /**
     * One kernel's measured costs.
     *
     * @param kernel        NPB kernel, lower case
     * @param cls           NPB class
     * @param storage       the bench's storage configuration label, empty for the default one
     * @param measuredNodes the node count the costs were measured on
     * @param checkpointS   the run time one checkpoint costs the job, s
     * @param costFrom      how the bench derived it: periodic, one-checkpoint or stall
     * @param recoveryS     each mode's kill to back at work, s
     */
    public record Kernel(String kernel, String cls, String storage, int measuredNodes, double checkpointS, String costFrom,
                         Map<RecoveryMode, Double> recoveryS) {
        public Kernel {
            recoveryS = Map.copyOf(recoveryS);
        }

        public double recoveryS(RecoveryMode mode) {
            return recoveryS.get(mode);
        }

        /** {@code MG B}, with a storage label in brackets if there is one. */
        public String label() {
            return kernel.toUpperCase(Locale.ROOT) + " " + cls + (storage.isEmpty() ? "" : " [" + storage + "]");
        }
    }

    /** The kernel of that name (case-insensitive), or a {@link SimulationInputException} listing the ones there are. */
    public Kernel kernel(String name) {
        return kernels.stream().filter(k -> k.kernel().equalsIgnoreCase(name.strip())).findFirst()
                .orElseThrow(() -> new SimulationInputException("kernel '" + name + "' is not in " + source + " (it has "
                        + String.join(", ", kernels.stream().map(Kernel::kernel).toList()) + ")"));
    }

    /** Reads {@code summaryCsv}; a missing file, a missing column or a bad number is a {@link SimulationInputException}. */
    public static SimulationCosts read(Path summaryCsv) {
        if (!Files.isRegularFile(summaryCsv)) {
            throw new SimulationInputException("costs file not found: " + summaryCsv);
        }
        List<String> lines;
        try {
            lines = Files.readAllLines(summaryCsv).stream().filter(l -> !l.isBlank()).toList();
        } catch (IOException e) {
            throw new SimulationInputException("cannot read " + summaryCsv + ": " + e.getMessage());
        }
        if (lines.isEmpty()) {
            throw new SimulationInputException(summaryCsv + " is empty (expected a header line)");
        }
        List<String> header = cells(lines.getFirst());
        Map<String, Integer> index = new HashMap<>();
        for (int i = 0; i < header.size(); i++) {
            index.putIfAbsent(header.get(i).strip(), i);
        }
        List<String> needed = new ArrayList<>(List.of(KERNEL, CLASS, NODES, COST));
        for (RecoveryMode mode : RecoveryMode.values()) {
            needed.add(mode.column());
        }
        for (String column : needed) {
            if (!index.containsKey(column)) {
                throw new SimulationInputException(summaryCsv + ": no column '" + column + "' in its header");
            }
        }
        List<Kernel> kernels = new ArrayList<>();
        List<String> leftOut = new ArrayList<>();
        for (int row = 1; row < lines.size(); row++) {
            List<String> cells = cells(lines.get(row));
            Map<String, String> values = new HashMap<>();
            index.forEach((column, i) -> values.put(column, i < cells.size() ? cells.get(i).strip() : ""));
            String where = summaryCsv + " line " + (row + 1);
            String name = values.get(KERNEL).toLowerCase(Locale.ROOT) + " " + values.get(CLASS);
            List<String> missing = new ArrayList<>();
            Double cost = number(values, COST, where);
            String costFrom = values.getOrDefault(COST_FROM, "");
            Double stall = number(values, STALL, where);
            if (cost != null && cost == 0 && "stall".equals(costFrom) && stall != null && stall > 0) {
                cost = stall / 1e3;
            }
            if (cost == null || !(cost > 0)) {
                missing.add(COST + " > 0");
            }
            Map<RecoveryMode, Double> recovery = new EnumMap<>(RecoveryMode.class);
            for (RecoveryMode mode : RecoveryMode.values()) {
                Double ms = number(values, mode.column(), where);
                if (ms == null || ms < 0) {
                    missing.add(mode.column());
                } else {
                    recovery.put(mode, ms / 1e3);
                }
            }
            Double nodes = number(values, NODES, where);
            if (nodes == null || nodes < 1 || nodes != Math.rint(nodes)) {
                throw new SimulationInputException(where + ": " + NODES + " must be a whole number >= 1, got '" + values.get(NODES) + "'");
            }
            if (!missing.isEmpty()) {
                leftOut.add(name + ": no " + String.join(", no ", missing));
                continue;
            }
            kernels.add(new Kernel(values.get(KERNEL).toLowerCase(Locale.ROOT), values.get(CLASS), values.getOrDefault(STORAGE, ""),
                    nodes.intValue(), cost, costFrom.isEmpty() ? "periodic" : costFrom, recovery));
        }
        if (kernels.isEmpty()) {
            throw new SimulationInputException(summaryCsv + ": no row has a checkpoint cost and all three recovery totals"
                    + (leftOut.isEmpty() ? "" : " (" + String.join("; ", leftOut) + ")"));
        }
        return new SimulationCosts(summaryCsv, producedBy(summaryCsv.resolveSibling("results.json")), kernels, leftOut);
    }

    /** npb-bench records its command line in the results.json it writes beside summary.csv. */
    private static String producedBy(Path resultsJson) {
        if (!Files.isRegularFile(resultsJson)) {
            return null;
        }
        try {
            JsonNode command = Json.MAPPER.readTree(resultsJson.toFile()).get("command");
            return command == null || !command.isTextual() ? null : command.asText();
        } catch (IOException e) {
            // The costs stand without it; the report then says the command is not recorded.
            return null;
        }
    }

    private static Double number(Map<String, String> values, String column, String where) {
        String text = values.get(column);
        if (text == null || text.isEmpty()) {
            return null;
        }
        try {
            return Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new SimulationInputException(where + ": " + column + " must be a number, got '" + text + "'");
        }
    }

    /** One CSV line's cells, RFC 4180 quoting (npb-bench quotes a cell with a comma or quote); no line breaks in cells. */
    static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cell.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        cells.add(cell.toString());
        return cells;
    }
}
