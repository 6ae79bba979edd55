package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** scripts/chaos's plans and its minority check, without a cluster. */
class ChaosPlanTest {
    private static final DateTimeFormatter LOG_TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneId.systemDefault());

    @Test
    void theSameSeedAndJobNumberGiveTheSamePlanWhateverRanBefore() {
        assertEquals(ChaosPlan.draw(7, 12), ChaosPlan.draw(7, 12));
        assertNotEquals(ChaosPlan.draw(7, 12), ChaosPlan.draw(8, 12));
        List<ChaosPlan> plans = IntStream.rangeClosed(1, 300).mapToObj(n -> ChaosPlan.draw(42, n)).toList();
        for (ChaosPlan plan : plans) {
            assertEquals(4, plan.computeNodes().stream().distinct().count(), plan.describe());
            assertTrue(plan.faults().size() >= 2 && plan.faults().size() <= 4, plan.describe());
            ChaosProgram program = plan.kind().program;
            for (int i = 0; i < plan.faults().size(); i++) {
                ChaosPlan.Fault fault = plan.faults().get(i);
                int iteration = fault.iteration();
                assertTrue(iteration >= ChaosPlan.scaled(8, program) && iteration <= ChaosPlan.scaled(88, program), plan.describe());
                assertTrue(i == 0 || iteration > plan.faults().get(i - 1).iteration(), "in order: " + plan.describe());
                assertTrue(plan.kind().faults.contains(fault.kind()), "a fault its kind is drawn from: " + plan.describe());
            }
        }
        assertEquals(ChaosPlan.Kind.values().length, plans.stream().map(ChaosPlan::kind).distinct().count(), "every kind drawn");
        assertEquals(ChaosPlan.FaultKind.values().length, plans.stream().flatMap(p -> p.faults().stream()).map(ChaosPlan.Fault::kind)
                .distinct().count(), "every fault drawn");
        for (ChaosPlan.Kind kind : ChaosPlan.Kind.values()) {
            assertEquals(kind.faults.size(), plans.stream().filter(p -> p.kind() == kind).flatMap(p -> p.faults().stream())
                    .map(ChaosPlan.Fault::kind).distinct().count(), "every fault of " + kind.label + " drawn");
        }
    }

    @Test
    void transparentJobsDrawOnlyWhatTransparentModeIsDocumentedToSurvive() {
        assertEquals(List.of(ChaosPlan.FaultKind.KILL, ChaosPlan.FaultKind.CRASH_DAEMON, ChaosPlan.FaultKind.SPARE_DURING_RECOVERY),
                ChaosPlan.Kind.TRANSPARENT.faults);
        assertTrue(ChaosPlan.Kind.NPB_PAUSE.faults.contains(ChaosPlan.FaultKind.FULL_DISK));
    }

    @Test
    void eachProgramsProgressLineGivesItsIterationAndNothingElseDoes() {
        assertEquals(12, ChaosProgram.ROLLBACK_RANK.iterationOf("ITER 12"));
        assertEquals(-1, ChaosProgram.ROLLBACK_RANK.iterationOf("ITER 12 345"));
        assertEquals(12, ChaosProgram.NPB_EP.iterationOf("[npb] iteration 12 of 64"));
        assertEquals(-1, ChaosProgram.NPB_EP.iterationOf("ITER 12"));
        assertEquals(12, ChaosProgram.TRANSPARENT_RING.iterationOf("ITER 12 1844674407370955161"));
        assertEquals(-1, ChaosProgram.TRANSPARENT_RING.iterationOf("ITER 12"));
        assertEquals(40, ChaosProgram.NPB_EP.firstIteration(" NAS Parallel Benchmarks\n[npb] iteration 40 of 64\n[npb] iteration 41 of 64\n"));
        assertEquals(-1, ChaosProgram.NPB_EP.firstIteration("mpirun-ft: stopped\n"));
    }

    @Test
    void eachProgramIsRightOnlyWithItsOwnReference() {
        String bits = "3f1a2b";
        assertTrue(ChaosProgram.ROLLBACK_RANK.wrongResult("RESULT bits=3f1a2b value=0.5 recoveries=1\n", bits).isEmpty());
        assertTrue(ChaosProgram.ROLLBACK_RANK.wrongResult("RESULT bits=3f1a2c value=0.5 recoveries=1\n", bits).isPresent());
        assertTrue(ChaosProgram.NPB_EP.wrongResult(" VERIFICATION SUCCESSFUL\n\n EP Benchmark Completed.\n", bits).isEmpty());
        assertTrue(ChaosProgram.NPB_EP.wrongResult(" VERIFICATION FAILED\n", bits).orElseThrow().contains("VERIFICATION FAILED"));
        String checksum = TransparentRing.expectedChecksum(4, ChaosProgram.TRANSPARENT_RING.iterations);
        assertTrue(ChaosProgram.TRANSPARENT_RING.wrongResult("ITER 99 1\nCHECKSUM " + checksum + "\n", bits).isEmpty());
        assertTrue(ChaosProgram.TRANSPARENT_RING.wrongResult("CHECKSUM 1\n", bits).isPresent());
    }

    @Test
    void aFullDiskIsOnlyMadeOfTheCampaignsSmallTmpfs(@TempDir Path directory) throws Exception {
        ChaosDisk disk = new ChaosDisk(directory);
        if (!Files.getFileStore(directory).type().equals("tmpfs")) {
            assertTrue(disk.unfillable().orElseThrow().contains("not the campaign's tmpfs"), disk.unfillable().toString());
        }
        disk.free();
    }

    @Test
    void aPauseThatResumedFromAnEpochThatNeverCommittedIsReported(@TempDir Path directory) throws Exception {
        Path log = directory.resolve("events.jsonl");
        Files.writeString(log, String.join("\n",
                "{\"type\":\"checkpoint\",\"epoch\":2,\"phase\":\"ordered\"}",
                "{\"type\":\"checkpoint\",\"epoch\":2,\"phase\":\"committed\"}",
                "{\"type\":\"checkpoint\",\"epoch\":3,\"phase\":\"ordered\"}",
                "{\"type\":\"resume\",\"epoch\":2}", ""));
        assertEquals(List.of(), ChaosChecks.resumesFromUncommittedEpochs(jobWithLog(log)));
        Files.writeString(log, "{\"type\":\"resume\",\"epoch\":3}\n", java.nio.file.StandardOpenOption.APPEND);
        List<String> found = ChaosChecks.resumesFromUncommittedEpochs(jobWithLog(log));
        assertEquals(1, found.size(), found.toString());
        assertTrue(found.getFirst().contains("epoch 3"), found.toString());
    }

    /** A job that is only its event log. */
    private static ChaosJob jobWithLog(Path log) {
        return new ChaosJob() {
            @Override
            public String id() {
                return "j";
            }

            @Override
            public long startedNanos() {
                return 0;
            }

            @Override
            public boolean ended() {
                return true;
            }

            @Override
            public List<ClusterJob.TimedLine> linesAfter(long afterNanos) {
                return List.of();
            }

            @Override
            public String output() {
                return "";
            }

            @Override
            public Path eventLog() {
                return log;
            }

            @Override
            public int exitCode(long boundSeconds) {
                return 0;
            }
        };
    }

    @Test
    void aDecisionOfTheCutOffLeaderThatTheJobGotBeforeTheMajorityCouldKnowIsReported(@TempDir Path nodes) throws Exception {
        Instant split = Instant.now().minusSeconds(30);
        Files.createDirectories(nodes.resolve("node5"));
        Files.writeString(nodes.resolve("node5/ftd.log"), String.join("\n",
                LOG_TIME.format(split.minusSeconds(1)) + " INFO node5: deciding RecoveryStarted[version=1, job=j, failureId=0@node1, source=x]",
                LOG_TIME.format(split.plusMillis(200)) + " INFO node5: deciding RecoveryStarted[version=1, job=j, failureId=1@node5, source=x]",
                LOG_TIME.format(split.plusMillis(900)) + " INFO node5: no longer leads the scheduler", ""));
        ObjectMapper json = new ObjectMapper();
        JsonNode early = json.readTree("{\"type\":\"decision\",\"failureId\":\"1@node5\",\"time\":\"" + split.plusMillis(400) + "\"}");
        JsonNode majority = json.readTree("{\"type\":\"decision\",\"failureId\":\"1@node5\",\"time\":\"" + split.plusMillis(2500) + "\"}");

        MinorityOrders.Finding clean = MinorityOrders.check(nodes, List.of("node5"), "j", split, split.plusSeconds(10), List.of(majority));
        assertEquals(1, clean.minorityDecisions().size(), "the decision before the split is not the minority's: " + clean);
        assertEquals(List.of(), clean.violations(), "the majority decided the same failure after it could detect the split");

        MinorityOrders.Finding reached = MinorityOrders.check(nodes, List.of("node5"), "j", split, split.plusSeconds(10), List.of(early));
        assertEquals(1, reached.violations().size(), reached.toString());
    }
}
