package org.mpirunft.npb.bench;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The lowest staying rank's report of one migration, as blcr-bridge prints it:
 * {@code [mpirun-ft] migration seq=1 ranks=[2] to=[spare1] iteration=40 reach_ms=... call_ms=...
 * transfer_ms=... rejoin_ms=... total_ms=... bytes=... start=warm}.
 *
 * @param iteration the iteration every rank went on with
 * @param totalMs   the ranks' stall: from the safe point they moved at to the spares' first step
 * @param start     {@code warm} (a warm spare took the rank) or {@code spawn}
 */
public record MigrationLine(long seq, long iteration, double reachMs, double callMs, double transferMs, double rejoinMs, double totalMs,
                            long bytes, String start) {
    private static final String NUMBER = "([0-9.]+)";
    private static final Pattern LINE = Pattern.compile("\\[mpirun-ft\\] migration seq=(\\d+) ranks=\\[[0-9, ]*\\] to=\\[[^\\]]*\\]"
            + " iteration=(\\d+) reach_ms=" + NUMBER + " call_ms=" + NUMBER + " transfer_ms=" + NUMBER + " rejoin_ms=" + NUMBER
            + " total_ms=" + NUMBER + " bytes=(\\d+) start=(\\w+)");

    /** The migration a line reports, or empty if it is not such a line. */
    public static Optional<MigrationLine> parse(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        return Optional.of(new MigrationLine(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Double.parseDouble(m.group(3)),
                Double.parseDouble(m.group(4)), Double.parseDouble(m.group(5)), Double.parseDouble(m.group(6)),
                Double.parseDouble(m.group(7)), Long.parseLong(m.group(8)), m.group(9)));
    }
}
