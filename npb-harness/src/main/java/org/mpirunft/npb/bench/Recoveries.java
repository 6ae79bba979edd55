package org.mpirunft.npb.bench;

import java.time.Duration;
import java.time.Instant;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.mpirunft.common.Json;

/**
 * The recovery time of a failure run, split the way the paper splits it, from three sources
 * on one clock (this machine's wall clock): the moment the harness injected the failure,
 * mpirun-ft's event log, and rank 0's output.
 *
 * <p>Both modes are measured to the same point, <b>back at work</b>: rank 0's first completed
 * iteration after the recovery. That iteration is the one the job rolled back to, so it is the
 * same work in both modes, and the lost work since the checkpoint is not counted in either.
 */
public final class Recoveries {
    private Recoveries() {
    }

    /**
     * A pause-mode recovery.
     *
     * @param detectionMs         failure injected to the reporting rank seeing it ({@code seen_at_ms})
     * @param launcherDetectionMs failure injected to mpirun-ft's first {@code failure} event
     * @param decisionMs          that event to the scheduler's {@code decision} (in parallel with the
     *                            ranks' own recovery, which starts on the MPI error)
     * @param rollbackMs          revoke and shrink of the survivors' world ({@code shrink_ms})
     * @param replacementStartMs  spawn of the replacement and its start-up until it joins
     *                            ({@code spawn_ms + merge_ms + join_ms})
     * @param stateLoadMs         agreeing on the epoch and restoring state ({@code load_ms})
     * @param rankTotalMs         the rank's own total, failure seen to state restored ({@code total_ms})
     * @param recoveryMs          failure injected to back at work
     * @param setupMs             part of the replacement start: the program's setup before its loop on
     *                            the replacement ({@code setup_ms}); null if the line has none
     * @param transferMs          the first replaced rank's read of its part (its {@code [npb] state transfer}
     *                            line), which overlaps the program's setup; null if it printed none
     * @param transferBytes       the bytes of that read
     * @param transferFrom        where it read from: {@code local} or {@code shared}
     * @param storageMBps         the same part file read again by the harness right after the run,
     *                            raw, from the same directory: the storage path's bandwidth; null
     *                            if not measured
     * @param lostIterations      iterations rank 0 had completed when the node was killed that the
     *                            rollback made it run again: the work the failure lost; null in
     *                            results from before it was counted
     */
    public record Pause(double detectionMs, Double launcherDetectionMs, Double decisionMs, double rollbackMs,
                        double replacementStartMs, double stateLoadMs, double rankTotalMs, double recoveryMs,
                        long epoch, long iteration, List<Integer> replaced, Double setupMs, Double transferMs, Long transferBytes,
                        String transferFrom, Double storageMBps, Long lostIterations) {
        /** As before iterations lost were counted. */
        public Pause(double detectionMs, Double launcherDetectionMs, Double decisionMs, double rollbackMs, double replacementStartMs,
                     double stateLoadMs, double rankTotalMs, double recoveryMs, long epoch, long iteration, List<Integer> replaced,
                     Double setupMs, Double transferMs, Long transferBytes, String transferFrom, Double storageMBps) {
            this(detectionMs, launcherDetectionMs, decisionMs, rollbackMs, replacementStartMs, stateLoadMs, rankTotalMs, recoveryMs, epoch,
                    iteration, replaced, setupMs, transferMs, transferBytes, transferFrom, storageMBps, null);
        }

        /** The state transfer in MB (10^6 bytes) per second, or null. */
        public Double transferMBps() {
            return transferMs == null || transferBytes == null ? null : NpbOutput.StateTransfer.megabytesPerSecond(transferBytes, transferMs);
        }

        /** This pause with the storage path's bandwidth as the harness measured it. */
        public Pause withStorageMBps(Double measured) {
            return new Pause(detectionMs, launcherDetectionMs, decisionMs, rollbackMs, replacementStartMs, stateLoadMs, rankTotalMs,
                    recoveryMs, epoch, iteration, replaced, setupMs, transferMs, transferBytes, transferFrom, measured, lostIterations);
        }
    }

    /**
     * A restart-mode recovery.
     *
     * @param detectionMs failure injected to mpirun-ft's first {@code failure} event
     * @param decisionMs  that event to the {@code decision} to restart
     * @param stopMs      stopping the failed job's processes ({@code restart} event's {@code stopMs})
     * @param relaunchMs  the {@code restart} event to back at work: new mpirun, node daemons,
     *                    JVMs, MPI_Init, loading the checkpoint, one iteration
     * @param recoveryMs  failure injected to back at work
     * @param iteration   the first iteration completed after the relaunch
     * @param runtimeMs   a full restart's node daemons leaving and joining again
     *                    ({@code runtime-restart} event's {@code durationMs}, part of the relaunch);
     *                    null for a restart that keeps them
     */
    public record Restart(double detectionMs, Double decisionMs, Double stopMs, double relaunchMs, double recoveryMs,
                          long iteration, Double runtimeMs) {
    }

    public static Pause pause(Instant injectedAt, NpbOutput output, LauncherEvents events) {
        events.first("fallback", injectedAt).ifPresent(e -> {
            throw new BenchException("pause fell back to a whole-job restart: " + e.text("reason"));
        });
        OptionalInt index = output.recoveryLineIndex(0);
        if (index.isEmpty()) {
            throw new BenchException("no in-place recovery was reported (no '[mpirun-ft] recovered' line)");
        }
        TimedLine line = output.lines().get(index.getAsInt());
        RecoveryLine recovery = RecoveryLine.parse(line.text()).orElseThrow();
        TimedLine backAtWork = output.firstIterationFrom(index.getAsInt() + 1)
                .orElseThrow(() -> new BenchException("no iteration completed after the in-place recovery"));
        var failure = events.first("failure", injectedAt);
        var decision = events.first("decision", injectedAt);
        Double launcherDetection = failure.map(e -> millis(injectedAt, e.time())).orElse(null);
        Double decisionMs = failure.isPresent() && decision.isPresent() ? millis(failure.get().time(), decision.get().time()) : null;
        var transfer = recovery.replaced().isEmpty() ? java.util.Optional.<NpbOutput.StateTransfer>empty()
                : output.stateTransferOf(recovery.replaced().getFirst(), 0);
        return new Pause(recovery.seenAtMillis() - injectedAt.toEpochMilli(), launcherDetection, decisionMs,
                recovery.shrinkMs(), recovery.replacementStartMs(), recovery.loadMs(), recovery.totalMs(),
                millis(injectedAt, backAtWork.at()), recovery.epoch(), recovery.iteration(), recovery.replaced(), recovery.setupMs(),
                transfer.map(NpbOutput.StateTransfer::millis).orElse(null), transfer.map(NpbOutput.StateTransfer::bytes).orElse(null),
                transfer.map(NpbOutput.StateTransfer::from).orElse(null), null,
                Math.max(0, output.lastIterationAt(injectedAt) + 1 - recovery.iteration()));
    }

    /**
     * A migration: a rank moved off a node with nothing rolled back. The ranks time the move
     * themselves (the lowest staying rank's {@link MigrationLine}); the harness adds the time from
     * its {@code migrate} command to rank 0's first iteration completed after the move.
     *
     * @param totalMs       the ranks' stall: from the safe point they moved at to the spare's first
     *                      step (calling the spare in, the state's transfer, the spare's rejoin)
     * @param reachMs       the order's arrival to that safe point, while the ranks go on computing
     * @param bytes         the state moved
     * @param iteration     the iteration every rank went on with
     * @param orderToWorkMs the harness's {@code migrate} command to back at work
     */
    public record Migration(double reachMs, double callMs, double transferMs, double rejoinMs, double totalMs, long bytes,
                            long iteration, String start, double orderToWorkMs) {
    }

    public static Migration migration(Instant orderedAt, NpbOutput output, LauncherEvents events) {
        for (String type : List.of("pause", "resume", "restart", "fallback")) {
            events.first(type, orderedAt).ifPresent(e -> {
                throw new BenchException("the migration ended in a '" + type + "' (a failure during it?), not a move");
            });
        }
        OptionalInt index = output.firstIndexOf(line -> MigrationLine.parse(line).isPresent());
        if (index.isEmpty()) {
            String abandoned = events.ofType("migration").stream().filter(e -> e.text("phase").equals("abandoned"))
                    .map(e -> e.text("reason")).findFirst().orElse("");
            throw new BenchException("no migration was reported (no '[mpirun-ft] migration' line)"
                    + (abandoned.isEmpty() ? "" : "; it was given up: " + abandoned));
        }
        MigrationLine moved = MigrationLine.parse(output.lines().get(index.getAsInt()).text()).orElseThrow();
        TimedLine backAtWork = output.firstIterationFrom(index.getAsInt() + 1)
                .orElseThrow(() -> new BenchException("no iteration completed after the migration"));
        return new Migration(moved.reachMs(), moved.callMs(), moved.transferMs(), moved.rejoinMs(), moved.totalMs(), moved.bytes(),
                moved.iteration(), moved.start(), millis(orderedAt, backAtWork.at()));
    }

    public static Restart restart(Instant injectedAt, NpbOutput output, LauncherEvents events) {
        var restart = events.first("restart", injectedAt)
                .orElseThrow(() -> new BenchException("mpirun-ft logged no 'restart' event after the failure"));
        OptionalInt relaunched = output.headerIndex(2);
        if (relaunched.isEmpty()) {
            throw new BenchException("the job was not launched a second time (one NPB banner in the output)");
        }
        TimedLine backAtWork = output.firstIterationFrom(relaunched.getAsInt() + 1)
                .orElseThrow(() -> new BenchException("the relaunched job completed no iteration"));
        var failure = events.first("failure", injectedAt)
                .orElseThrow(() -> new BenchException("mpirun-ft logged no 'failure' event after the failure"));
        Double decisionMs = events.first("decision", injectedAt).map(d -> millis(failure.time(), d.time())).orElse(null);
        Double stopMs = restart.fields().path("stopMs").isNumber() ? restart.number("stopMs") : null;
        Double runtimeMs = events.first("runtime-restart", injectedAt)
                .filter(e -> e.fields().path("durationMs").isNumber()).map(e -> e.number("durationMs")).orElse(null);
        return new Restart(millis(injectedAt, failure.time()), decisionMs, stopMs,
                millis(restart.time(), backAtWork.at()), millis(injectedAt, backAtWork.at()),
                NpbOutput.iterationOf(backAtWork.text()), runtimeMs);
    }

    static double millis(Instant from, Instant to) {
        return Duration.between(from, to).toNanos() / 1e6;
    }

    /**
     * A {@code transparent} run: its checkpoints as CRIU took them, and the restore after the kill.
     *
     * @param imageBytes      each rank node's part of the restored epoch (the images of its node daemon and rank), by node
     * @param launcherBytes   the launcher node's part (mpirun)
     * @param dumpMs          each rank node's CRIU dump of the restored epoch, by node
     * @param stallMs         the job's stall per checkpoint: from the lock of every node to the unlock (the event log's
     *                        committed durationMs), median over the run's epochs
     * @param stopMs          the restore's stop on the live nodes (lock, kill, sockets dropped)
     * @param restoreMs       each node's RESTORE step (check the images, unpack node-local files, CRIU), by the node it ran on
     * @param totalMs         the launcher daemon's restore, first step to last
     * @param recoveryMs      kill to the first iteration the restored job completed, as the harness saw it
     * @param epoch           the epoch restored
     * @param onto            each lost node's spare
     */
    public record Transparent(Map<String, Long> imageBytes, long launcherBytes, Map<String, Double> dumpMs, Double stallMs,
                              double stopMs, Map<String, Double> restoreMs, double totalMs, double recoveryMs, long epoch,
                              Map<String, String> onto) {
    }

    /**
     * Reads a transparent run's restore: the event log's resume, the epoch's manifest and the
     * launcher daemon's record of the restore ({@code restores.jsonl}) in {@code epochs}, the
     * directory of the job's transparent epochs, and the first iteration printed after the resume.
     */
    public static Transparent transparent(Instant injectedAt, NpbOutput output, LauncherEvents events, Path epochs,
                                          String launcherNode) throws java.io.IOException {
        for (String type : List.of("restart", "fallback")) {
            events.first(type, injectedAt).ifPresent(e -> {
                throw new BenchException("the transparent restore fell back to a relaunch: " + e.text("reason"));
            });
        }
        LauncherEvents.Event resume = events.first("resume", injectedAt)
                .orElseThrow(() -> new BenchException("no transparent restore was reported (no 'resume' event)"));
        long epoch = (long) resume.number("epoch");
        Path transparent = epochs;
        com.fasterxml.jackson.databind.JsonNode manifest = Json.MAPPER.readTree(transparent.resolve("epoch-" + epoch).resolve("manifest.json").toFile());
        Map<String, Long> images = new java.util.TreeMap<>();
        Map<String, Double> dumps = new java.util.TreeMap<>();
        long launcher = 0;
        for (var part : (Iterable<Map.Entry<String, com.fasterxml.jackson.databind.JsonNode>>) manifest.path("parts")::fields) {
            if (part.getKey().equals(launcherNode)) {
                launcher = part.getValue().path("bytes").asLong();
            } else {
                images.put(part.getKey(), part.getValue().path("bytes").asLong());
                dumps.put(part.getKey(), part.getValue().path("dumpMillis").asDouble());
            }
        }
        com.fasterxml.jackson.databind.JsonNode restore = null;
        for (String line : java.nio.file.Files.readAllLines(transparent.resolve("restores.jsonl"))) {
            com.fasterxml.jackson.databind.JsonNode node = Json.MAPPER.readTree(line);
            if (node.path("epoch").asLong() == epoch) {
                restore = node;
            }
        }
        if (restore == null) {
            throw new BenchException("no record of the restore from epoch " + epoch + " in " + transparent.resolve("restores.jsonl"));
        }
        Map<String, Double> restores = new java.util.TreeMap<>();
        restore.path("restoreMs").fields().forEachRemaining(e -> restores.put(e.getKey(), e.getValue().asDouble()));
        Map<String, String> onto = new java.util.TreeMap<>();
        restore.path("onto").fields().forEachRemaining(e -> onto.put(e.getKey(), e.getValue().asText()));
        double stopMs = 0;
        for (var stop : (Iterable<com.fasterxml.jackson.databind.JsonNode>) restore.path("stopMs")::elements) {
            stopMs = Math.max(stopMs, stop.asDouble());
        }
        TimedLine backAtWork = output.lines().stream().filter(l -> l.at().isAfter(resume.time()) && NpbOutput.iterationOf(l.text()) >= 0)
                .findFirst().orElseThrow(() -> new BenchException("no iteration completed after the transparent restore"));
        Double stall = Medians.of(events.commits().stream().map(e -> e.number("durationMs")).toList());
        return new Transparent(images, launcher, dumps, stall, stopMs, restores, restore.path("totalMs").asDouble(),
                millis(injectedAt, backAtWork.at()), epoch, onto);
    }
}
