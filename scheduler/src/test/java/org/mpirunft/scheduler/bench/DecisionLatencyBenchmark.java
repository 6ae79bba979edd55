package org.mpirunft.scheduler.bench;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.NoSpareAction;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Member;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.NodeLoad;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.scheduler.JobTable;
import org.mpirunft.scheduler.JobTransition;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.SchedulerCore;
import org.mpirunft.scheduler.SchedulerUpdate;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.policy.LeastLoadedSpare;
import org.mpirunft.scheduler.policy.Placement;

/**
 * The scheduler's decision latency: from a node-failure event to the pause command, with the
 * replication round trip left out (it is the membership channel's, measured there). Prints
 * median and 99th percentile over many failures on a cluster of the given size.
 *
 * A command on the test class path, not a test (see README.md):
 * <pre>java -cp "target/test-classes:target/classes:$(cat target/scheduler-test.classpath)" \
 *   org.mpirunft.scheduler.bench.DecisionLatencyBenchmark [nodes] [rounds]</pre>
 */
public final class DecisionLatencyBenchmark {
    private static final InetSocketAddress CONTROL = InetSocketAddress.createUnresolved("localhost", 7000);

    private DecisionLatencyBenchmark() {
    }

    public static void main(String[] args) {
        // Each round makes a new leader, which logs; that is not what is measured here.
        java.util.logging.Logger.getLogger(SchedulerCore.class.getName()).setLevel(java.util.logging.Level.WARNING);
        int nodes = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        List<Long> samples = new ArrayList<>();
        SchedulerConfig config = new SchedulerConfig(Optional.of(Duration.ofMinutes(10)), Duration.ofHours(24), Duration.ofMinutes(1),
                java.nio.file.Path.of("/shared"), LeastLoadedSpare.NAME, NoSpareAction.STOP_JOB);
        for (int round = 0; round < rounds; round++) {
            List<Member> members = new ArrayList<>();
            List<String> rankNodes = new ArrayList<>();
            members.add(member("daemon0", false));
            for (int i = 1; i < nodes; i++) {
                boolean spare = i > nodes - 4;
                members.add(member((spare ? "spare" : "node") + i, spare));
                if (!spare) {
                    rankNodes.add("node" + i);
                }
            }
            SchedulerCore[] core = new SchedulerCore[1];
            core[0] = new SchedulerCore("daemon0", config, new Placement(new LeastLoadedSpare(), NoSpareAction.STOP_JOB),
                    new JobTable(), System::currentTimeMillis, System::nanoTime, new SchedulerCore.Outputs() {
                        @Override
                        public void replicate(SchedulerUpdate update) {
                            core[0].apply(update);
                        }

                        @Override
                        public void transition(JobTransition transition) {
                        }
                    });
            core[0].onView(new ClusterView(1, members));
            core[0].apply(new SchedulerUpdate.JobRegistered(SchedulerUpdate.VERSION, "job", "head:9000", rankNodes, List.of(), RecoveryMode.PAUSE,
                    CheckpointSchedule.AUTO, 10, 0, JobOwner.ROOT));
            Member victim = members.get(1 + round % (rankNodes.size()));
            List<Member> survivors = new ArrayList<>(members);
            survivors.remove(victim);
            core[0].onMembershipEvent(new MembershipEvent.NodeFailed(victim, new ClusterView(2, survivors)));
            samples.addAll(core[0].decisionNanos());
        }
        List<Long> measured = samples.subList(samples.size() / 2, samples.size()); // after warm-up
        Collections.sort(measured);
        System.out.printf(Locale.ROOT, "decision latency, %d nodes, %d failures after warm-up: median %.1f us, p99 %.1f us%n",
                nodes, measured.size(), measured.get(measured.size() / 2) / 1e3, measured.get(measured.size() * 99 / 100) / 1e3);
    }

    private static Member member(String name, boolean spare) {
        NodeMetadata metadata = spare ? NodeMetadata.spare(name, 1, CONTROL) : NodeMetadata.compute(name, 1, CONTROL);
        return new Member(name + "-id", metadata, new NodeLoad(0.1, 0));
    }
}
