package org.mpirunft.daemon.internal;

import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.mpirunft.daemon.protocol.ControlReply;

/** What the daemon needs of the scheduler it hosts; the seam between the two modules. */
public interface SchedulerPort extends AutoCloseable {
    void start();

    void registerJob(String job, String launcherNode, List<String> rankNodes);

    void epochCommitted(String job, long epoch, Duration cost);

    void recoveryCompleted(String job, String failureId, List<String> rankNodes);

    void jobFinished(String job);

    void checkpointNow(String job);

    /** The acting leader's node name, empty when unknown. */
    String leader();

    List<ControlReply.JobStatus> jobs();

    /** Commands for jobs launched from this node, possibly more than once each (see their keys). */
    void onCommand(Consumer<ControlReply.JobCommand> listener);

    @Override
    void close();
}
