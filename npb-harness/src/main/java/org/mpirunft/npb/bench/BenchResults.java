package org.mpirunft.npb.bench;

import java.util.List;
import java.util.Map;

/**
 * Everything one bench run produced, as {@code results.json} holds it.
 *
 * @param command  the exact command line that produced it
 * @param settings the resolved settings (pace, checkpoint interval, MTBF, ...), for the report
 * @param notRun   runs not made because the class does not fit this machine (none in results from before the list)
 */
public record BenchResults(int version, String command, String startedAt, String finishedAt, Map<String, Object> settings,
                           List<RunResult> runs, List<Summary.Row> summary, List<NotRun> notRun) {
    public static final int VERSION = 1;

    public BenchResults {
        notRun = notRun == null ? List.of() : List.copyOf(notRun);
    }
}
