package org.mpirunft.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Injects one job's planned faults as the job runs, each at its iteration, and undoes the
 * temporary ones (hang, cut, split) once the job got over them. Every wait here has a bound; at
 * it the fault is recorded as not injected (the job ended or made no progress) or the node is
 * healed anyway, and the campaign goes on.
 */
final class ChaosFaults {
    /** For the job to print the fault's iteration after the previous fault: a recovery or a relaunch fits in it. */
    static final long ITERATION_BOUND_MILLIS = 90_000;
    /** For the job to get over a hang, cut or split (a resume, a relaunch or its end) before the node is healed anyway. */
    static final long HEAL_BOUND_MILLIS = 60_000;
    /** For the scheduler's decision after the node kill of a spare-lost fault. */
    static final long DECISION_BOUND_MILLIS = 30_000;
    /**
     * How long a full-disk fault keeps the checkpoint directory full: several checkpoints of every
     * kind are due in it (RollbackRank's every 0.75 s, NPB's every 1.6 s, and the job's event
     * log is elsewhere), and a failure that falls in it must recover from an older epoch.
     */
    static final long FULL_DISK_MILLIS = 10_000;

    /** One fault as it went: what was done to which node at which iteration, or why it was not injected. */
    record Injected(ChaosPlan.Fault planned, List<String> actions, int iteration, long atMillis, String note) {
        int count() {
            return actions.size();
        }

        @Override
        public String toString() {
            String what = actions.isEmpty() ? planned.kind().label + " not injected" : String.join("+", actions);
            return what + (iteration >= 0 ? "@" + iteration : "") + (atMillis >= 0 ? String.format(" +%.1fs", atMillis / 1e3) : "")
                    + (note.isEmpty() ? "" : " (" + note + ")");
        }
    }

    /** A split as it went, for the minority check. */
    record Split(List<String> minority, Instant at, Instant healedAt) {
    }

    private final ChaosCluster nodes;
    private final ChaosJob job;
    private final ChaosProgram program;
    private final ChaosDisk disk;
    /** The plan's compute nodes, rank by rank: where the ranks are when the scheduler's table names none. */
    private final List<String> planned;
    final List<Injected> injected = new ArrayList<>();
    final List<Split> splits = new ArrayList<>();

    ChaosFaults(ChaosCluster nodes, ChaosJob job, ChaosProgram program, ChaosDisk disk, List<String> planned) {
        this.nodes = nodes;
        this.job = job;
        this.program = program;
        this.disk = disk;
        this.planned = planned;
    }

    /** Injects {@code faults} in order; returns when the last was injected (and healed) or the job ended. */
    void inject(List<ChaosPlan.Fault> faults) throws Exception {
        long after = job.startedNanos();
        for (ChaosPlan.Fault fault : faults) {
            Optional<Integer> reached = awaitIteration(fault.iteration(), after);
            if (reached.isEmpty()) {
                injected.add(new Injected(fault, List.of(), -1, -1,
                        job.ended() ? "the job ended first" : "no iteration >= " + fault.iteration() + " within " + ITERATION_BOUND_MILLIS / 1000 + " s"));
                continue;
            }
            injected.add(injectOne(fault, reached.get()));
            after = System.nanoTime();
        }
    }

    /** Heals every node a fault left hung, cut off or split (the heal's bound passed, or the job ended first). */
    void healAll() {
        for (String node : nodes.allNodes) {
            if (List.of("hung", "cut", "split").contains(nodes.state(node))) {
                nodes.cluster.heal(node);
            }
        }
    }

    private Injected injectOne(ChaosPlan.Fault fault, int iteration) throws Exception {
        long at = (System.nanoTime() - job.startedNanos()) / 1_000_000;
        if (fault.kind() == ChaosPlan.FaultKind.FULL_DISK) {
            return fullDisk(fault, iteration, at);
        }
        Optional<String> target = rankNode(fault.rank());
        if (fault.kind() == ChaosPlan.FaultKind.LEADER) {
            Optional<String> leader = nodes.leader();
            if (leader.isEmpty() || !nodes.isUp(leader.get())) {
                return new Injected(fault, List.of(), iteration, at, "no leader named, or it is not up");
            }
            if (leader.get().equals("head")) {
                // The head node runs mpirun and the campaign's mpirun-ft: a lost head ends the job by design.
                nodes.cluster.crashDaemon("head");
                return new Injected(fault, List.of("crash-daemon head(leader)"), iteration, at, "");
            }
            nodes.cluster.kill(leader.get());
            return new Injected(fault, List.of("kill " + leader.get() + "(leader)"), iteration, at, "");
        }
        if (target.isEmpty()) {
            return new Injected(fault, List.of(), iteration, at, "no live node of a rank in the scheduler's table");
        }
        String node = target.get();
        return switch (fault.kind()) {
            case KILL -> {
                nodes.cluster.kill(node);
                yield new Injected(fault, List.of("kill " + node), iteration, at, "");
            }
            case CRASH_DAEMON -> {
                nodes.cluster.crashDaemon(node);
                yield new Injected(fault, List.of("crash-daemon " + node), iteration, at, "");
            }
            case HANG, CUT -> {
                int progress = progressEvents();
                if (fault.kind() == ChaosPlan.FaultKind.HANG) {
                    nodes.cluster.hang(node);
                } else {
                    nodes.cluster.cut(node);
                }
                String note = awaitProgress(progress);
                nodes.cluster.heal(node);
                yield new Injected(fault, List.of(fault.kind().label + " " + node), iteration, at, note);
            }
            case SPLIT -> split(fault, node, iteration, at);
            case SPARE_DURING_RECOVERY -> spareLost(fault, node, iteration, at);
            case LEADER, FULL_DISK -> throw new IllegalStateException("handled above");
        };
    }

    /**
     * The rank's node and a second one split from the rest, so that the minority is at most two of
     * the group's eleven daemons and the other side keeps a majority of the log's five voters. The
     * second is the scheduler's leader when it is neither the head node (mpirun stays on the
     * majority side) nor the rank's node, so that the cut-off leader may decide what must not reach a rank.
     */
    private Injected split(ChaosPlan.Fault fault, String node, int iteration, long at) throws Exception {
        Optional<String> leader = nodes.leader();
        String second;
        if (leader.isPresent() && !leader.get().equals("head") && !leader.get().equals(node) && nodes.isUp(leader.get())) {
            second = leader.get();
        } else {
            List<String> others = nodes.allNodes.stream().filter(n -> !n.equals("head") && !n.equals(node) && nodes.isUp(n)).toList();
            second = others.get(fault.coin() % others.size());
        }
        List<String> minority = List.of(node, second);
        int progress = progressEvents();
        Instant splitAt = Instant.now();
        nodes.cluster.split(minority);
        // As SplitBrainIT: the rank dies at once, so that its daemon tells the minority's side
        // (its leader, if it went along) before anyone's detector sees the split: the cut-off
        // leader may then decide a recovery that must never reach a rank.
        int killed = killRanksOn(node);
        String note = awaitProgress(progress);
        minority.forEach(nodes.cluster::heal);
        splits.add(new Split(minority, splitAt, Instant.now()));
        return new Injected(fault, List.of("split " + String.join(",", minority) + (second.equals(leader.orElse("")) ? "(leader)" : "")),
                iteration, at, (killed + " rank process(es) on " + node + " killed at the split; " + note).replaceFirst("; $", ""));
    }

    /** SIGKILLs the job's rank processes on {@code node}; returns how many. */
    private int killRanksOn(String node) throws Exception {
        List<String> kill = new ArrayList<>(List.of("kill", "-KILL"));
        for (var process : nodes.cluster.processesOn(node)) {
            String command = MigrationIT.commandLine(process.pid());
            // One job runs at a time: every rank process on the node is this job's.
            if (command.contains(program.rankMarker)) {
                kill.add(Long.toString(process.pid()));
            }
        }
        if (kill.size() > 2) {
            new ProcessBuilder(kill).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        }
        return kill.size() - 2;
    }

    /** The rank's node killed; once the scheduler decided, the first node it placed a lost rank on killed too. */
    private Injected spareLost(ChaosPlan.Fault fault, String node, int iteration, long at) throws Exception {
        int decisions = count("decision");
        nodes.cluster.kill(node);
        long deadline = System.nanoTime() + DECISION_BOUND_MILLIS * 1_000_000;
        while (System.nanoTime() < deadline && !job.ended()) {
            List<JsonNode> all = events("decision");
            if (all.size() > decisions) {
                JsonNode placement = all.get(decisions).path("placement");
                for (JsonNode placed : placement) {
                    String spare = placed.asText();
                    if (!spare.equals("head") && nodes.isUp(spare)) {
                        nodes.cluster.kill(spare);
                        return new Injected(fault, List.of("kill " + node, "kill " + spare + "(placed)"), iteration, at, "");
                    }
                }
                return new Injected(fault, List.of("kill " + node), iteration, at, "the decision placed no live node: " + placement);
            }
            Thread.sleep(20);
        }
        return new Injected(fault, List.of("kill " + node), iteration, at,
                job.ended() ? "the job ended before a decision" : "no decision within " + DECISION_BOUND_MILLIS / 1000 + " s");
    }

    /**
     * The checkpoint directory filled until the file system refuses, kept full for
     * {@link #FULL_DISK_MILLIS} (or until the job ended), then freed. The note says what the job's
     * checkpoints did meanwhile: the campaign's judgement (its bits, its resume points against
     * the committed epochs) says whether an epoch that could not be written whole was used.
     */
    private Injected fullDisk(ChaosPlan.Fault fault, int iteration, long at) throws Exception {
        Optional<String> unfillable = disk.unfillable();
        if (unfillable.isPresent()) {
            return new Injected(fault, List.of(), iteration, at, unfillable.get());
        }
        Map<String, Integer> before = checkpointPhases();
        long filled = disk.fill();
        long free = disk.usable();
        long deadline = System.nanoTime() + FULL_DISK_MILLIS * 1_000_000;
        try {
            while (System.nanoTime() < deadline && !job.ended()) {
                Thread.sleep(100);
            }
        } finally {
            disk.free();
        }
        Map<String, Integer> after = checkpointPhases();
        List<String> during = new ArrayList<>();
        after.forEach((phase, n) -> {
            int more = n - before.getOrDefault(phase, 0);
            if (more > 0) {
                during.add(more + " " + phase);
            }
        });
        return new Injected(fault, List.of("full-disk " + filled / (1 << 20) + "MB"), iteration, at,
                String.format("%d bytes left free for %.0f s; checkpoint events meanwhile: %s", free, FULL_DISK_MILLIS / 1e3,
                        during.isEmpty() ? "none" : String.join(", ", during)));
    }

    /** The job's checkpoint events so far, by phase (ordered, committed, failed, ...). */
    private Map<String, Integer> checkpointPhases() {
        Map<String, Integer> phases = new TreeMap<>();
        events("checkpoint").forEach(e -> phases.merge(e.path("phase").asText(), 1, Integer::sum));
        return phases;
    }

    /**
     * The live node of the rank ({@code rank} modulo the table's size, the next live one if that
     * one is not up), by the scheduler's table, or by the plan's nodes while the table names none.
     */
    private Optional<String> rankNode(int rank) {
        List<String> table = nodes.rankNodes(job.id());
        if (table.isEmpty()) {
            table = planned;
        }
        for (int i = 0; i < table.size(); i++) {
            String node = table.get((rank + i) % table.size());
            if (nodes.isUp(node) && !node.equals("head")) {
                return Optional.of(node);
            }
        }
        return Optional.empty();
    }

    /** The first progress line at or past {@code iteration} printed after {@code afterNanos}, within the bound; empty if the job ended first. */
    private Optional<Integer> awaitIteration(int iteration, long afterNanos) throws InterruptedException {
        long deadline = System.nanoTime() + ITERATION_BOUND_MILLIS * 1_000_000;
        while (System.nanoTime() < deadline && !job.ended()) {
            Optional<ClusterJob.TimedLine> line = job.linesAfter(afterNanos).stream().filter(l -> iterationOf(l) >= iteration).findFirst();
            if (line.isPresent()) {
                return Optional.of(iterationOf(line.get()));
            }
            Thread.sleep(20);
        }
        return Optional.empty();
    }

    private int iterationOf(ClusterJob.TimedLine line) {
        return program.iterationOf(line.text());
    }

    /** Events that show the job got over a failure: a resume (pause), a launch (relaunch) or its exit. */
    private int progressEvents() {
        return count("resume") + count("launch") + count("exit");
    }

    /** Waits until the job got over the fault; returns a note if it did not within the bound. */
    private String awaitProgress(int before) throws InterruptedException {
        long deadline = System.nanoTime() + HEAL_BOUND_MILLIS * 1_000_000;
        while (System.nanoTime() < deadline) {
            if (progressEvents() > before || job.ended()) {
                return "";
            }
            Thread.sleep(50);
        }
        return "healed after " + HEAL_BOUND_MILLIS / 1000 + " s with no resume or relaunch";
    }

    private int count(String type) {
        return events(type).size();
    }

    private List<JsonNode> events(String type) {
        try {
            return job.events().stream().filter(e -> e.path("type").asText().equals(type)).toList();
        } catch (java.io.IOException | RuntimeException e) {
            // The event log is written as the job goes: absent before the launch, a line may be half written.
            return List.of();
        }
    }
}
