package org.mpirunft.npb.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/** Output and event logs shaped like real ones (taken from a class S pause and restart run). */
final class Fixtures {
    static final Instant INJECTED = Instant.parse("2026-11-21T16:20:55.600Z");

    private Fixtures() {
    }

    static TimedLine at(long millisAfterInjection, String text) {
        return new TimedLine(INJECTED.plusMillis(millisAfterInjection), text);
    }

    static String event(long millisAfterInjection, String type, String fields) {
        return "{\"version\":1,\"time\":\"" + INJECTED.plusMillis(millisAfterInjection) + "\",\"job\":\"j\",\"type\":\"" + type + "\""
                + (fields.isEmpty() ? "" : "," + fields) + "}";
    }

    static NpbOutput pauseOutput() {
        List<TimedLine> lines = new ArrayList<>();
        lines.add(at(-9000, " NAS Parallel Benchmarks (mpirun-ft Java) - EP Benchmark"));
        lines.add(at(-500, "[npb] iteration 41 of 64"));
        lines.add(at(-100, "[npb] iteration 42 of 64"));
        lines.add(at(200, "PRTE has lost communication with a remote daemon."));
        lines.add(at(3300, "[npb] state transfer rank=1 epoch=5 bytes=999 ms=1.0 from=local"));
        lines.add(at(3400, "[npb] state transfer rank=2 epoch=5 bytes=120000000 ms=60.0 from=shared"));
        lines.add(at(4100, "[mpirun-ft] recovered replaced=[2] epoch=5 iteration=40 seen_at_ms=" + (INJECTED.toEpochMilli() + 540)
                + " shrink_ms=11.8 spawn_ms=250.0 merge_ms=66.2 join_ms=2800.0 load_ms=456.2 total_ms=3589.2 wait_cpu_ms=20.0"
                + " setup_ms=150.0 transfer_ms=60.0"));
        lines.add(at(4500, "[npb] iteration 40 of 64"));
        lines.add(at(4600, "[npb] iteration 41 of 64"));
        lines.add(at(9000, " VERIFICATION SUCCESSFUL"));
        lines.add(at(9001, " Time in seconds =                     7.82"));
        lines.add(at(9002, " Verification    =               SUCCESSFUL"));
        lines.add(at(9003, "[npb] checkpoints taken=7 last_bytes=152 last_stall_ms=0.183 total_stall_ms=1.200 last_write_ms=16.211 last_epoch=7"));
        return new NpbOutput(lines);
    }

    static LauncherEvents pauseEvents() {
        return LauncherEvents.parse(List.of(
                event(-12000, "launch", "\"attempt\":1,\"rankNodes\":[\"node1\",\"node2\",\"node3\",\"node4\"],\"spares\":[\"spare1\"]"),
                event(-3000, "checkpoint", "\"epoch\":5,\"phase\":\"committed\",\"durationMs\":55.0"),
                event(-2000, "checkpoint", "\"epoch\":6,\"phase\":\"committed\",\"durationMs\":57.0"),
                event(510, "failure", "\"failureId\":\"\",\"ranks\":[2],\"nodes\":[\"node3\"],\"source\":\"runtime\""),
                event(1000, "failure", "\"failureId\":\"2@node3\",\"ranks\":[2],\"nodes\":[\"node3\"],\"source\":\"scheduler\""),
                event(1010, "decision", "\"failureId\":\"2@node3\",\"action\":\"pause\",\"placement\":{\"2\":\"spare1\"},\"reason\":\"\""),
                event(4200, "resume", "\"replacedRanks\":[2],\"epoch\":5,\"iteration\":40,\"recoveryMs\":3589.2")), "test");
    }

    static NpbOutput restartOutput() {
        List<TimedLine> lines = new ArrayList<>();
        lines.add(at(-9000, " NAS Parallel Benchmarks (mpirun-ft Java) - EP Benchmark"));
        lines.add(at(-100, "[npb] iteration 42 of 64"));
        lines.add(at(300, "PRTE has lost communication with a remote daemon."));
        lines.add(at(6000, " NAS Parallel Benchmarks (mpirun-ft Java) - EP Benchmark"));
        lines.add(at(8900, "[npb] iteration 40 of 64"));
        lines.add(at(12000, " Verification    =               SUCCESSFUL"));
        return new NpbOutput(lines);
    }

    static LauncherEvents restartEvents() {
        return LauncherEvents.parse(List.of(
                event(-12000, "launch", "\"attempt\":1,\"rankNodes\":[\"node4\",\"node3\",\"node2\",\"node1\"]"),
                event(-3000, "checkpoint", "\"epoch\":5,\"phase\":\"committed\",\"durationMs\":50.0"),
                event(470, "failure", "\"failureId\":\"\",\"ranks\":[2],\"nodes\":[\"node2\"],\"source\":\"runtime\""),
                event(520, "decision", "\"failureId\":\"\",\"action\":\"restart\",\"placement\":{},\"reason\":\"--recovery restart\""),
                event(1020, "restart", "\"failureId\":\"\",\"attempt\":2,\"replacedNodes\":{\"node2\":\"spare1\"},\"stopMs\":456.19"),
                event(1030, "launch", "\"attempt\":2,\"rankNodes\":[\"node4\",\"node3\",\"spare1\",\"node1\"]")), "test");
    }
}
