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
        List<ChaosPlan> plans = IntStream.rangeClosed(1, 200).mapToObj(n -> ChaosPlan.draw(42, n)).toList();
        for (ChaosPlan plan : plans) {
            assertEquals(4, plan.computeNodes().stream().distinct().count(), plan.describe());
            assertTrue(plan.faults().size() >= 2 && plan.faults().size() <= 4, plan.describe());
            for (int i = 0; i < plan.faults().size(); i++) {
                int iteration = plan.faults().get(i).iteration();
                assertTrue(iteration >= 8 && iteration <= 88, plan.describe());
                assertTrue(i == 0 || iteration > plan.faults().get(i - 1).iteration(), "in order: " + plan.describe());
            }
        }
        assertEquals(ChaosPlan.Kind.values().length, plans.stream().map(ChaosPlan::kind).distinct().count(), "every kind drawn");
        assertEquals(ChaosPlan.FaultKind.values().length, plans.stream().flatMap(p -> p.faults().stream()).map(ChaosPlan.Fault::kind)
                .distinct().count(), "every fault drawn");
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
