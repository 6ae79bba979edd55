package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * What scripts/chaos does to one job, drawn from the campaign's seed before the job starts: its
 * kind (a program and a recovery mode), the four compute nodes it runs on, and its faults, each
 * at an iteration of the kind's program, from those the kind can be expected to survive. The plan names
 * ranks and coins, not nodes: which node a rank is on, and who leads the scheduler, are looked up
 * when the fault is injected, so a rerun with the same seed makes the same choices from the same
 * state. Each job draws from its own {@link Random}, seeded by the campaign's seed and the job's
 * number, so one job can be run again alone ({@code --from-job K --jobs 1}).
 */
record ChaosPlan(int number, Kind kind, List<String> computeNodes, List<Fault> faults) {
    /** RollbackRank's arguments: 100 iterations of 150 ms (a checkpoint every 5: ClusterJob's standing order). */
    static final ClusterJob.Program PROGRAM = new ClusterJob.Program(1000, 100, 150);
    static final int COMPUTE_NODES = 8;
    static final int SPARES = 2;
    static final int RANKS = 4;
    /**
     * Faults are drawn at these points of a 100-iteration run and scaled to the program's length:
     * none before the first epoch can have committed (RollbackRank's iteration 5), none in the
     * last iterations, where the job may end first.
     */
    private static final int FIRST_FAULT_AT = 8;
    private static final int LAST_FAULT_AT = 88;

    /** The jobs' kinds: a program under one of mpirun-ft's recovery modes. */
    enum Kind {
        PAUSE_WARM("pause-warm", ChaosProgram.ROLLBACK_RANK, List.of("--recovery", "pause"), FaultKind.ALL),
        PAUSE_COLD("pause-cold", ChaosProgram.ROLLBACK_RANK, List.of("--recovery", "pause", "--warm-spares", "off"), FaultKind.ALL),
        RESTART("restart", ChaosProgram.ROLLBACK_RANK, List.of("--recovery", "restart"), FaultKind.ALL),
        /** mpirun-ft does not see the rank library on a script's class path (bin/npb): warm spares are asked for, as npb-bench does. */
        NPB_PAUSE("npb-pause", ChaosProgram.NPB_EP, List.of("--recovery", "pause", "--warm-spares", "on"), FaultKind.ALL),
        NPB_RESTART("npb-restart", ChaosProgram.NPB_EP, List.of("--recovery", "restart"), FaultKind.ALL),
        /**
         * Only what transparent mode is documented to survive: a node's loss (restored on a spare),
         * a spare lost during the restore (a failed restore relaunches the job from its beginning),
         * a compute node's daemon crashed (its step fails, the checkpoint is abandoned). Not a hang,
         * cut or split: a node that is hung or cut off rather than dead still holds its floating job
         * address, which the README says must be fenced first. Not the leader fault: when the head
         * node leads, it crashes the head's daemon, which coordinates the job's dumps and restores
         * and is a restored mpirun's parent. Not a full disk: CRIU's epochs go to the daemons'
         * shared storage, not the job's checkpoint directory that the fault fills.
         */
        TRANSPARENT("transparent", ChaosProgram.TRANSPARENT_RING, List.of("--recovery", "transparent"),
                List.of(FaultKind.KILL, FaultKind.CRASH_DAEMON, FaultKind.SPARE_DURING_RECOVERY));

        final String label;
        final ChaosProgram program;
        final List<String> options;
        /** The faults a plan of this kind draws from. */
        final List<FaultKind> faults;

        Kind(String label, ChaosProgram program, List<String> options, List<FaultKind> faults) {
            this.label = label;
            this.program = program;
            this.options = options;
            this.faults = faults;
        }
    }

    /** The faults, as scripts/cluster injects them (a full disk: as the campaign does, on the checkpoint directory's tmpfs). */
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
        LEADER("leader"),
        /** The job's checkpoint directory (a tmpfs of its own) filled to the last byte for a while, then freed. */
        FULL_DISK("full-disk");

        static final List<FaultKind> ALL = List.of(values());

        final String label;

        FaultKind(String label) {
            this.label = label;
        }
    }

    /**
     * One fault: at the first progress line of iteration {@code iteration} or later printed after
     * the previous fault, on the node of rank {@code rank} (modulo the job's current size) where a
     * rank's node is wanted; {@code coin} picks the second node of a split when the leader cannot be it.
     */
    record Fault(FaultKind kind, int iteration, int rank, int coin) {
        @Override
        public String toString() {
            // A full disk is the job's, not a rank's.
            return kind.label + "@" + iteration + (kind == FaultKind.FULL_DISK ? "" : "(rank " + rank + ")");
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
        int at = FIRST_FAULT_AT + random.nextInt(20);
        for (int i = 0; i < count && at <= LAST_FAULT_AT; i++) {
            FaultKind fault = kind.faults.get(random.nextInt(kind.faults.size()));
            faults.add(new Fault(fault, scaled(at, kind.program), random.nextInt(RANKS), random.nextInt(1 << 16)));
            // At least 6 of 100 apart: still apart once scaled to a shorter program.
            at += 6 + random.nextInt(20);
        }
        return new ChaosPlan(number, kind, compute, List.copyOf(faults));
    }

    /** A point of a 100-iteration run as an iteration of {@code program}. */
    static int scaled(int at, ChaosProgram program) {
        return at * program.iterations / 100;
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
