package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.mpirunft.daemon.FtdConfig;

/** The node's health check, run for real through /bin/sh, and the drain it drives. */
class HealthCheckTest {
    /**
     * The timeout for checks that end at once: ample, because on a loaded machine starting /bin/sh
     * alone once took more than 300 ms (the suite beside the Ansible and Slurm tests).
     */
    private static final Duration ENDS = Duration.ofSeconds(10);

    @Test
    void aCheckFailsOnAnExitStatusATimeoutOrANumberAboveTheThreshold() {
        assertEquals(Optional.empty(), once("true", OptionalDouble.empty(), ENDS));
        assertEquals(Optional.of("'echo fan 3 stopped; exit 3' exited with status 3: fan 3 stopped"),
                once("echo fan 3 stopped; exit 3", OptionalDouble.empty(), ENDS));
        assertEquals(Optional.empty(), once("echo 84.9", OptionalDouble.of(85), ENDS));
        assertEquals(Optional.of("'echo 91' measured 91, above the threshold 85.0"), once("echo 91", OptionalDouble.of(85), ENDS));
        assertTrue(once("echo hot", OptionalDouble.of(85), ENDS).orElseThrow().contains("printed no number"));
        long start = System.nanoTime();
        Optional<String> slow = once("sleep 20", OptionalDouble.empty(), Duration.ofMillis(300));
        assertEquals(Optional.of("'sleep 20' did not end within 300ms"), slow);
        assertTrue(System.nanoTime() - start < Duration.ofSeconds(5).toNanos(), "the watchdog ended it");
    }

    @Test
    void aFailingCheckDrainsTheNodeUntilItPassesAndTheOperatorsDrainComesFirst() {
        AtomicInteger published = new AtomicInteger();
        NodeDrain drain = new NodeDrain("node3", published::incrementAndGet);
        assertEquals("", drain.reason());
        drain.healthChecked(Optional.of("'temp' measured 91"));
        assertEquals("health check failed: 'temp' measured 91", drain.reason());
        drain.healthChecked(Optional.of("'temp' measured 91"));
        assertEquals(1, published.get(), "published on a change only");
        drain.drain("memory errors");
        assertEquals("drained by the operator: memory errors", drain.reason());
        drain.healthChecked(Optional.empty());
        assertEquals("drained by the operator: memory errors", drain.reason(), "the operator's drain stays");
        drain.resume();
        assertEquals("", drain.reason());
        assertEquals(3, published.get(), "each change of the reason: the check's, the operator's, none");
    }

    @Test
    void theCheckRunsEveryPeriodAndHandsOnEachVerdict() throws Exception {
        List<Optional<String>> verdicts = new ArrayList<>();
        try (HealthCheck check = HealthCheck.start(new FtdConfig.HealthCheck("exit 1", Duration.ofMillis(50), Duration.ofSeconds(2),
                OptionalDouble.empty()), ProcessBuilder::start, verdict -> {
                    synchronized (verdicts) {
                        verdicts.add(verdict);
                    }
                })) {
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (System.nanoTime() < deadline) {
                synchronized (verdicts) {
                    if (verdicts.size() >= 3) {
                        break;
                    }
                }
                Thread.sleep(20);
            }
        }
        synchronized (verdicts) {
            assertTrue(verdicts.size() >= 3, verdicts.toString());
            assertEquals(Optional.of("'exit 1' exited with status 1"), verdicts.getFirst());
        }
    }

    private static Optional<String> once(String command, OptionalDouble threshold, Duration timeout) {
        try (HealthCheck check = new HealthCheck(new FtdConfig.HealthCheck(command, Duration.ofHours(1), timeout, threshold),
                ProcessBuilder::start)) {
            return check.runOnce();
        }
    }
}
