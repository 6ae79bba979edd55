package org.mpirunft.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The check that no order from a minority side ever reached a rank, from what the daemons and
 * mpirun-ft wrote. A minority decision is a {@code deciding} line about the job, logged during a
 * split by a daemon of the split-off side that then logs that it no longer leads or was expelled:
 * its entry could not commit. The majority may decide the same failure (the same failure id)
 * later, but not before its own detector can know of the split (the FAST profile's heartbeat
 * timeout, as SplitBrainIT argues). So a job decision with a minority decision's failure id,
 * written after that decision and earlier than the detection floor past the split, is a minority
 * order that reached the ranks.
 */
final class MinorityOrders {
    /** The FAST profile's heartbeat timeout: nobody on the majority side can know of the partition earlier. */
    static final Duration DETECTION_FLOOR = Duration.ofMillis(1900);
    private static final Pattern LOG_TIME = Pattern.compile("^(\\d\\d:\\d\\d:\\d\\d\\.\\d\\d\\d)");
    private static final Pattern FAILURE_ID = Pattern.compile("failureId=([^,\\]]*)");

    /** A decision logged on the minority side: when, by whom, about which failure. */
    record Decision(Instant time, String node, String failureId, String line) {
    }

    /** What one split left: the minority's decisions about the job, and the job decisions that came from one of them. */
    record Finding(List<Decision> minorityDecisions, List<String> violations) {
    }

    private MinorityOrders() {
    }

    /**
     * For a split at {@code splitAt} of {@code minority} from the rest, healed at {@code healedAt}:
     * the minority's decisions about {@code job} (from {@code logs}/NODE/ftd.log) and the job's
     * {@code decisions} events that one of them could have become.
     */
    static Finding check(Path nodesDirectory, List<String> minority, String job, Instant splitAt, Instant healedAt,
                         List<JsonNode> decisions) throws IOException {
        List<Decision> found = new ArrayList<>();
        for (String node : minority) {
            Path log = nodesDirectory.resolve(node).resolve("ftd.log");
            if (!Files.exists(log)) {
                continue;
            }
            List<Decision> pending = new ArrayList<>();
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                Instant time = timeOf(line);
                if (time == null || time.isBefore(splitAt) || time.isAfter(healedAt.plusSeconds(5))) {
                    continue;
                }
                if (line.contains(": deciding ") && line.contains("job=" + job + ",")) {
                    Matcher id = FAILURE_ID.matcher(line);
                    pending.add(new Decision(time, node, id.find() ? id.group(1) : "", line));
                } else if (line.contains("no longer leads") || line.contains("EXPELLED")) {
                    // Decided, then lost the lead or the group: those entries could not commit.
                    found.addAll(pending);
                    pending.clear();
                }
            }
        }
        List<String> violations = new ArrayList<>();
        Instant floor = splitAt.plus(DETECTION_FLOOR);
        for (JsonNode decision : decisions) {
            Instant time = Instant.parse(decision.get("time").asText());
            String failureId = decision.path("failureId").asText();
            for (Decision minorityDecision : found) {
                if (minorityDecision.failureId().equals(failureId) && !time.isBefore(minorityDecision.time()) && time.isBefore(floor)) {
                    violations.add("the job's decision " + decision + " came " + Duration.between(splitAt, time).toMillis()
                            + " ms after the split, before the majority could detect it, after " + minorityDecision.node()
                            + "'s minority decision: " + minorityDecision.line());
                }
            }
        }
        return new Finding(List.copyOf(found), List.copyOf(violations));
    }

    /**
     * A daemon log line's time: lines start with the local time of day. The campaign runs on the
     * daemons' machine, so the day is today's, or yesterday's for a time after now (a run over midnight).
     */
    static Instant timeOf(String line) {
        Matcher m = LOG_TIME.matcher(line);
        if (!m.find()) {
            return null;
        }
        ZoneId zone = ZoneId.systemDefault();
        LocalTime time = LocalTime.parse(m.group(1));
        Instant today = LocalDate.now(zone).atTime(time).atZone(zone).toInstant();
        return today.isAfter(Instant.now().plusSeconds(60)) ? today.minus(Duration.ofDays(1)) : today;
    }
}
