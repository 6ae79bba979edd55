package org.mpirunft.npb.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Rank 0's (the lowest survivor's) report of one in-place recovery, as blcr-bridge's
 * {@code RecoveryReport.toLine()} prints it:
 * {@code [mpirun-ft] recovered replaced=[2] epoch=4 iteration=40 seen_at_ms=... shrink_ms=...
 * spawn_ms=... merge_ms=... join_ms=... load_ms=... total_ms=...}.
 *
 * @param seenAtMillis wall clock (epoch milliseconds) when the reporting rank saw the failure
 */
public record RecoveryLine(List<Integer> replaced, long epoch, long iteration, long seenAtMillis, double shrinkMs,
                           double spawnMs, double mergeMs, double joinMs, double loadMs, double totalMs, Double setupMs,
                           Double transferMs) {
    private static final String NUMBER = "([0-9.]+)";
    private static final Pattern LINE = Pattern.compile("\\[mpirun-ft\\] recovered replaced=\\[([0-9,]*)\\] epoch=(\\d+) iteration=(\\d+)"
            + " seen_at_ms=(\\d+) shrink_ms=" + NUMBER + " spawn_ms=" + NUMBER + " merge_ms=" + NUMBER + " join_ms=" + NUMBER
            + " load_ms=" + NUMBER + " total_ms=" + NUMBER + "(?: wait_cpu_ms=[0-9.]+ setup_ms=" + NUMBER + " transfer_ms=" + NUMBER + ")?");

    /** The recovery a line reports, or empty if it is not such a line. */
    public static Optional<RecoveryLine> parse(String line) {
        Matcher m = LINE.matcher(line);
        if (!m.find()) {
            return Optional.empty();
        }
        List<Integer> replaced = m.group(1).isEmpty() ? List.of()
                : Arrays.stream(m.group(1).split(",")).map(Integer::valueOf).toList();
        return Optional.of(new RecoveryLine(replaced, Long.parseLong(m.group(2)), Long.parseLong(m.group(3)),
                Long.parseLong(m.group(4)), Double.parseDouble(m.group(5)), Double.parseDouble(m.group(6)),
                Double.parseDouble(m.group(7)), Double.parseDouble(m.group(8)), Double.parseDouble(m.group(9)),
                Double.parseDouble(m.group(10)), m.group(11) == null ? null : Double.valueOf(m.group(11)),
                m.group(12) == null ? null : Double.valueOf(m.group(12))));
    }

    /** Start-up of the replacements as the survivors wait for it: spawn, merge and join. */
    public double replacementStartMs() {
        return spawnMs + mergeMs + joinMs;
    }
}
