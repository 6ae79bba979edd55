package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.protocol.ControlReply;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * scripts/chaos's view of its simulated cluster: the nodes' states as scripts/cluster keeps them,
 * what their daemons report, the repair between jobs (killed nodes revived, the others healed)
 * and what a job left running.
 */
final class ChaosCluster {
    /** A repaired cluster's group forms within seconds; a rejoin after a merge can take MERGE3's interval more. */
    static final long HEALTHY_BOUND_MILLIS = 120_000;
    /** How long a job's processes may take to go after mpirun-ft's exit (FailureOrderIT's bound). */
    static final long LEFTOVER_BOUND_MILLIS = 15_000;

    final SimulatedCluster cluster;
    /** The compute nodes, the spares and the head node. */
    final List<String> allNodes;

    ChaosCluster(SimulatedCluster cluster) {
        this.cluster = cluster;
        List<String> all = new ArrayList<>(cluster.nodes());
        all.add("head");
        this.allNodes = List.copyOf(all);
    }

    /** up, killed, hung, cut or split, as scripts/cluster wrote it. */
    String state(String node) {
        try {
            return Files.readString(cluster.stateDirectory().resolve("nodes/" + node + "/state")).strip();
        } catch (IOException e) {
            return "gone";
        }
    }

    boolean isUp(String node) {
        return state(node).equals("up");
    }

    Path nodesDirectory() {
        return cluster.stateDirectory().resolve("nodes");
    }

    /** How long a daemon may take to answer a status request; past it the daemon counts as not answering. */
    static final long STATUS_BOUND_MILLIS = 10_000;

    /**
     * The node's daemon's status, or empty when it does not answer within
     * {@link #STATUS_BOUND_MILLIS} (a killed, hung or cut-off node, or a daemon that accepts and
     * never answers: the client itself has no bound).
     */
    Optional<ControlReply.StatusReport> status(String node) {
        if (!isUp(node)) {
            return Optional.empty();
        }
        java.util.concurrent.CompletableFuture<ControlReply.StatusReport> asked = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> new DaemonClient(nodesDirectory().resolve(node).resolve("ftd.sock")).status(),
                command -> Thread.ofVirtual().start(command));
        try {
            return Optional.of(asked.get(STATUS_BOUND_MILLIS, java.util.concurrent.TimeUnit.MILLISECONDS));
        } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The scheduler's leader as the head node's daemon names it; empty if it names none. */
    Optional<String> leader() {
        return status("head").map(ControlReply.StatusReport::leader).filter(l -> !l.isEmpty());
    }

    /** The job's rank-to-node table as the head node's daemon holds it (index: rank). */
    List<String> rankNodes(String job) {
        return status("head").flatMap(s -> s.jobs().stream().filter(j -> j.job().equals(job)).findFirst())
                .map(ControlReply.JobStatus::rankNodes).orElse(List.of());
    }

    /**
     * Repairs what the last job's faults left: killed nodes revived, hung, cut and split ones
     * healed; then waits until every daemon is in one group of all nodes, none fenced, with one
     * leader. Returns what is still wrong after {@link #HEALTHY_BOUND_MILLIS}, or empty.
     */
    Optional<String> repairAndAwaitHealthy() throws InterruptedException {
        return repairAndAwaitHealthy(HEALTHY_BOUND_MILLIS);
    }

    /** As above, waiting at most {@code boundMillis} for the healthy group. */
    Optional<String> repairAndAwaitHealthy(long boundMillis) throws InterruptedException {
        for (String node : allNodes) {
            try {
                switch (state(node)) {
                    case "killed" -> cluster.revive(node);
                    case "hung", "cut", "split" -> cluster.heal(node);
                    default -> { }
                }
            } catch (IllegalStateException e) {
                return Optional.of("cannot repair " + node + ": " + e.getMessage());
            }
        }
        long deadline = System.nanoTime() + boundMillis * 1_000_000;
        String wrong;
        do {
            wrong = unhealthy();
            if (wrong == null) {
                return Optional.empty();
            }
            Thread.sleep(500);
        } while (System.nanoTime() < deadline);
        return Optional.of(wrong);
    }

    /** What keeps the cluster from being one healthy group, or null. */
    private String unhealthy() {
        Map<String, List<String>> leaders = new java.util.TreeMap<>();
        for (String node : allNodes) {
            Optional<ControlReply.StatusReport> status = status(node);
            if (status.isEmpty()) {
                return node + " (" + state(node) + "): its daemon does not answer";
            }
            ControlReply.StatusReport s = status.get();
            if (!s.joined() || s.fenced()) {
                return node + ": joined=" + s.joined() + " fenced=" + s.fenced();
            }
            if (s.members().size() != allNodes.size()) {
                return node + " sees " + s.members().size() + " members of " + allNodes.size();
            }
            if (s.members().stream().anyMatch(m -> !m.drain().isEmpty())) {
                return node + " sees a drained node";
            }
            leaders.computeIfAbsent(s.leader().isEmpty() ? "(none)" : s.leader(), l -> new ArrayList<>()).add(node + " (term " + s.logTerm() + ")");
        }
        if (leaders.size() != 1 || leaders.containsKey("(none)")) {
            // Which daemon names which leader: the one naming none is where to look (its log, its term).
            return "the daemons name leaders " + leaders;
        }
        return null;
    }

    /** One job process on a node. */
    record Leftover(String node, long pid, String command) {
        @Override
        public String toString() {
            return node + ":" + pid + ":" + (command.length() > 80 ? command.substring(0, 80) : command);
        }
    }

    /**
     * The ranks (of any {@link ChaosProgram}), Open MPI's node daemons (prted) and mpirun processes still on any
     * node, once {@link #LEFTOVER_BOUND_MILLIS} passed with some left; empty as soon as none is.
     */
    List<Leftover> awaitNothingLeft() throws InterruptedException {
        long deadline = System.nanoTime() + LEFTOVER_BOUND_MILLIS * 1_000_000;
        List<Leftover> left;
        do {
            left = jobProcesses();
            if (left.isEmpty()) {
                return left;
            }
            Thread.sleep(250);
        } while (System.nanoTime() < deadline);
        return left;
    }

    /** SIGKILLs what a job left, so that the next job starts on a clean cluster (the finding is recorded first). */
    void killLeftovers(List<Leftover> left) throws IOException, InterruptedException {
        if (left.isEmpty()) {
            return;
        }
        List<String> kill = new ArrayList<>(List.of("kill", "-KILL"));
        left.forEach(l -> kill.add(Long.toString(l.pid())));
        new ProcessBuilder(kill).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
    }

    /** Whether a command line is a rank's of any of the campaign's programs. */
    private static boolean isRank(String command) {
        return java.util.Arrays.stream(ChaosProgram.values()).anyMatch(p -> command.contains(p.rankMarker));
    }

    /** The job processes on every live node now. */
    List<Leftover> jobProcesses() {
        List<Leftover> left = new ArrayList<>();
        for (String node : allNodes) {
            if (state(node).equals("killed")) {
                continue;
            }
            for (SimulatedCluster.NodeProcess p : cluster.processesOn(node)) {
                String command = MigrationIT.commandLine(p.pid());
                if (isRank(command) || Objects.equals(p.command(), "prted") || Objects.equals(p.command(), "mpirun")
                        || command.contains("/bin/mpirun ")) {
                    left.add(new Leftover(node, p.pid(), command.isEmpty() ? p.command() : command));
                }
            }
        }
        return left;
    }
}
