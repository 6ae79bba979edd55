package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * What scripts/chaos does to one job, drawn from the campaign's seed before the job starts: its
 * kind, the four compute nodes it runs on, and its faults, each at an iteration. The plan names
 * ranks and coins, not nodes: which node a rank is on, and who leads the scheduler, are looked up
 * when the fault is injected, so a rerun with the same seed makes the same choices from the same
 * state. Each job draws from its own {@link Random}, seeded by the campaign's seed and the job's
 * number, so one job can be run again alone ({@code --from-job K --jobs 1}).
 */
record ChaosPlan(int number, Kind kind, List<String> computeNodes, List<Fault> faults) {
    /** The job's program: 100 iterations of 150 ms, a checkpoint every 5 (ClusterJob's standing order). */
    static final ClusterJob.Program PROGRAM = new ClusterJob.Program(1000, 100, 150);
    static final int COMPUTE_NODES = 8;
    static final int SPARES = 2;
    static final int RANKS = 4;
    /** No fault before the first epoch (iteration 5) can have committed, none in the last iterations, where the job may end first. */
    private static final int FIRST_FAULT_ITERATION = 8;
    private static final int LAST_FAULT_ITERATION = 88;

    /** The jobs' kinds covered so far: RollbackRank under mpirun-ft's recovery modes. */
    enum Kind {
        PAUSE_WARM("pause-warm", List.of("--recovery", "pause")),
        PAUSE_COLD("pause-cold", List.of("--recovery", "pause", "--warm-spares", "off")),
        RESTART("restart", List.of("--recovery", "restart"));

        final String label;
        final List<String> options;

        Kind(String label, List<String> options) {
            this.label = label;
            this.options = options;
        }
    }

    /** The faults, as scripts/cluster injects them. */
    enum FaultKind {
        /** SIGKILL of everything on a rank's node, its storage wiped (revived after the job). */
        KILL("kill"),
        /** SIGSTOP of a rank's node; continued once the job recovered (or past the heal bound). */
        HANG("hang"),
        /** A rank's node's link down; up again once the job recovered. */
        CUT("cut"),
        /** A rank's node and the scheduler's leader (or another node) split from the rest; healed once the job recovered. */
        SPLIT("split"),
        /** A rank's node's daemon SIGKILLed and started again: no failure of the job. */
        CRASH_DAEMON("crash-daemon"),
        /** A rank's node killed, then the node the scheduler's decision placed a lost rank on. */
        SPARE_DURING_RECOVERY("spare-lost"),
        /** The scheduler leader's node killed; if the head node leads (it runs mpirun), its daemon crashed instead. */
        LEADER("leader");

        final String label;

        FaultKind(String label) {
            this.label = label;
        }
    }

    /**
     * One fault: at the first {@code ITER n} line with n at least {@code iteration} printed after
     * the previous fault, on the node of rank {@code rank} (modulo the job's current size) where a
     * rank's node is wanted; {@code coin} picks the second node of a split when the leader cannot be it.
     */
    record Fault(FaultKind kind, int iteration, int rank, int coin) {
        @Override
        public String toString() {
            return kind.label + "@ITER" + iteration + "(rank " + rank + ")";
        }
    }

    static ChaosPlan draw(long seed, int number) {
        Random random = new Random(seed * 1_000_003L + number);
        Kind kind = Kind.values()[random.nextInt(Kind.values().length)];
        List<String> nodes = new ArrayList<>();
        for (int i = 1; i <= COMPUTE_NODES; i++) {
            nodes.add("node" + i);
        }
        java.util.Collections.shuffle(nodes, random);
        List<String> compute = List.copyOf(nodes.subList(0, RANKS));
        // Two to four: the acceptance asks for 150 faults over 40 jobs or more (issue 48).
        int count = 2 + random.nextInt(3);
        List<Fault> faults = new ArrayList<>();
        int iteration = FIRST_FAULT_ITERATION + random.nextInt(20);
        for (int i = 0; i < count && iteration <= LAST_FAULT_ITERATION; i++) {
            FaultKind fault = FaultKind.values()[random.nextInt(FaultKind.values().length)];
            faults.add(new Fault(fault, iteration, random.nextInt(RANKS), random.nextInt(1 << 16)));
            iteration += 6 + random.nextInt(20);
        }
        return new ChaosPlan(number, kind, compute, List.copyOf(faults));
    }

    String job(String campaign) {
        return String.format("chaos-%s-%03d", campaign, number);
    }

    /** mpirun-ft's {@code --host}: the job's compute nodes in order, then both spares. */
    String hosts() {
        return computeNodes.stream().map(n -> n + ":1").collect(Collectors.joining(",")) + ",spare1:1,spare2:1";
    }

    String describe() {
        return String.format("plan job %03d kind=%s hosts=%s faults: %s", number, kind.label, String.join(",", computeNodes),
                faults.stream().map(Fault::toString).collect(Collectors.joining(" ")));
    }
}
