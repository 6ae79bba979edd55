package org.mpirunft.scheduler.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Durations;
import org.mpirunft.common.NoSpareAction;
import org.mpirunft.common.yaml.StrictYaml;
import org.mpirunft.scheduler.policy.LeastLoadedSpare;
import org.mpirunft.scheduler.policy.ReplacementPolicies;

/**
 * Reads and validates the scheduler's part of the cluster config file:
 *
 * <pre>
 * version: 1
 * checkpoint:
 *   interval: auto          # or a duration: 30s, 10m, 1h, PT10M
 *   mtbf: 24h
 *   cost: 1m                # assumed until measured
 * storage:
 *   shared: /shared/mpirun-ft
 *   flush-writers: 2        # nodes of a job copying checkpoints to shared storage at once; 0: all
 * policies:
 *   replacement: least-loaded-spare
 *   when-no-spare: stop-job # or use-compute, or shrink (go on with the survivors)
 * </pre>
 *
 * The file is read by {@link StrictYaml}: every error is one line naming the file and the key,
 * {@code cluster.yaml: checkpoint.mtbf: must be a duration such as 30s, 10m, 1h, 500ms or PT30S,
 * got 'often'}, and unknown keys are errors. There is no spare list: the spares are the nodes
 * whose daemons have the spare role.
 */
public final class SchedulerConfigReader {
    private SchedulerConfigReader() {
    }

    public static SchedulerConfig read(Path file) {
        return read(StrictYaml.read(file, ConfigException::new));
    }

    public static SchedulerConfig parse(String yaml, String source) {
        return read(StrictYaml.parse(yaml, source, ConfigException::new));
    }

    private static SchedulerConfig read(StrictYaml root) {
        root.keys("version", "checkpoint", "storage", "policies").requireVersion(SchedulerConfig.VERSION);
        StrictYaml checkpoint = root.section("checkpoint", "interval", "mtbf", "cost");
        Optional<Duration> interval = checkpoint.value("interval", "auto", SchedulerConfigReader::interval);
        Duration mtbf = checkpoint.value("mtbf", "24h", Durations::parsePositive);
        Duration cost = checkpoint.value("cost", "1m", Durations::parsePositive);
        StrictYaml storage = root.section("storage", "shared", "flush-writers");
        Path shared = storage.absolutePath("shared", "/shared/mpirun-ft");
        int flushWriters = storage.integer("flush-writers", 0, 0, 4096);
        StrictYaml policies = root.section("policies", "replacement", "when-no-spare");
        String replacement = policies.value("replacement", LeastLoadedSpare.NAME, (key, name) -> {
            ReplacementPolicies.byName(name); // found now, not at the first failure
            return name;
        });
        NoSpareAction whenNoSpare = policies.value("when-no-spare", NoSpareAction.STOP_JOB.configName(),
                (key, text) -> NoSpareAction.fromConfig(text));
        return new SchedulerConfig(interval, mtbf, cost, shared, replacement, whenNoSpare, flushWriters);
    }

    /** {@code auto} (empty), or a fixed interval greater than zero. */
    private static Optional<Duration> interval(String key, String text) {
        if (text.equals("auto")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Durations.parsePositive(key, text));
        } catch (BadValueException e) {
            throw new BadValueException(key, "must be 'auto' or a duration greater than 0 such as 30s, 10m or 1h, got '" + text + "'");
        }
    }
}
