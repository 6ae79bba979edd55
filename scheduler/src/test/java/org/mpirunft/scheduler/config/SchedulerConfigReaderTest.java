package org.mpirunft.scheduler.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.NoSpareAction;

class SchedulerConfigReaderTest {

    @Test
    void readsAFullConfig() {
        SchedulerConfig config = SchedulerConfigReader.parse("""
                version: 1
                checkpoint:
                  interval: 10m
                  mtbf: 6h
                  cost: 30s
                storage:
                  shared: /shared/ckpt
                  flush-writers: 2
                policies:
                  replacement: least-loaded-spare
                  when-no-spare: use-compute
                """, "cluster.yaml");
        assertEquals(Duration.ofMinutes(10), config.checkpointInterval().orElseThrow());
        assertEquals(Duration.ofHours(6), config.mtbf());
        assertEquals(Duration.ofSeconds(30), config.checkpointCost());
        assertEquals(Path.of("/shared/ckpt"), config.sharedStorage());
        assertEquals(NoSpareAction.USE_COMPUTE, config.whenNoSpare());
        assertEquals(2, config.flushWriters());
        assertEquals(Duration.ofDays(7), SchedulerConfigReader.parse("version: 1\ncheckpoint: {mtbf: 7d}\n", "c.yaml").mtbf(),
                "an MTBF in days, in the one duration grammar");
    }

    @Test
    void defaultsToAutoWithTheDocumentedValues() {
        SchedulerConfig config = SchedulerConfigReader.parse("version: 1\n", "minimal.yaml");
        assertTrue(config.autoInterval());
        assertEquals(Duration.ofHours(24), config.mtbf());
        assertEquals(NoSpareAction.STOP_JOB, config.whenNoSpare());
        assertEquals(0, config.flushWriters(), "no staggered flush unless asked for");
    }

    @Test
    void everyErrorNamesTheFileTheKeyAndTheProblem() {
        assertError("checkpoint:\n  interval: soon\n",
                "c.yaml: checkpoint.interval: must be 'auto' or a duration greater than 0 such as 30s, 10m or 1h, got 'soon'");
        assertError("checkpoint:\n  interval: 0s\n", "c.yaml: checkpoint.interval: must be 'auto' or a duration greater than 0");
        assertError("checkpoint:\n  mtbf: 0s\n", "c.yaml: checkpoint.mtbf: must be greater than 0, got '0s'");
        assertError("checkpoint:\n  cost: often\n", "c.yaml: checkpoint.cost: must be a duration such as 30s, 10m, 1h, 500ms or PT30S, got 'often'");
        assertError("checkpoint:\n  intervall: 10m\n", "c.yaml: checkpoint.intervall: unknown key (known here: cost, interval, mtbf)");
        assertError("storage:\n  shared: relative/dir\n", "c.yaml: storage.shared: must be an absolute path, got 'relative/dir'");
        assertError("policies:\n  when-no-spare: panic\n", "c.yaml: policies.when-no-spare: must be use-compute, stop-job or shrink, got 'panic'");
        assertError("storage:\n  flush-writers: -1\n", "c.yaml: storage.flush-writers: must be an integer in 0..4096, got '-1'");
        assertError("storage:\n  flush-writers: two\n", "c.yaml: storage.flush-writers: must be an integer in 0..4096");
        assertError("storage: /shared\n", "c.yaml: storage: must be a mapping, got '/shared'");
        assertError("policies:\n  replacement: random\n",
                "c.yaml: policies.replacement: no replacement policy named 'random' (known: least-loaded-spare)");
        ConfigException version = assertThrows(ConfigException.class, () -> SchedulerConfigReader.parse("version: 2\n", "c.yaml"));
        assertEquals("c.yaml: version: must be 1, got '2'", version.getMessage());
        ConfigException yaml = assertThrows(ConfigException.class, () -> SchedulerConfigReader.parse("version: [1\n", "c.yaml"));
        assertTrue(yaml.getMessage().startsWith("c.yaml: not valid YAML"), yaml.getMessage());
    }

    /** Keys that were read but never used are gone; a file that still has them is told so, not silently obeyed. */
    @Test
    void theRemovedSparesLocalStorageAndPauseTimeoutKeysAreUnknown() {
        assertError("spares: [spare1]\n", "c.yaml: spares: unknown key (known here: checkpoint, policies, storage, version)");
        assertError("storage:\n  local: /local/ckpt\n", "c.yaml: storage.local: unknown key (known here: flush-writers, shared)");
        assertError("timeouts:\n  pause: 60s\n", "c.yaml: timeouts: unknown key");
    }

    private static void assertError(String body, String expectedStart) {
        ConfigException e = assertThrows(ConfigException.class, () -> SchedulerConfigReader.parse("version: 1\n" + body, "c.yaml"));
        assertTrue(e.getMessage().startsWith(expectedStart), "message was: " + e.getMessage());
        assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
    }
}
