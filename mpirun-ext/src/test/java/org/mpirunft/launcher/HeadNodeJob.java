package org.mpirunft.launcher;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * mpirun-ft run on the head node itself ({@code scripts/cluster exec head -- mpirun-ft ...}), as a
 * user runs it there: what transparent mode needs, since CRIU dumps mpirun with its output pipes,
 * which must be the node's. Its merged output is read as it comes, each line stamped when complete.
 */
final class HeadNodeJob implements ChaosJob {
    /** For the last of the output once mpirun-ft exited. */
    private static final long OUTPUT_DRAIN_MILLIS = 5_000;

    private final String id;
    private final Path eventLog;
    private final Process process;
    private final long startedNanos = System.nanoTime();
    private final StringBuffer text = new StringBuffer();
    private final List<ClusterJob.TimedLine> lines = new CopyOnWriteArrayList<>();
    private final Thread reader;

    private HeadNodeJob(String id, Path eventLog, Process process) {
        this.id = id;
        this.eventLog = eventLog;
        this.process = process;
        this.reader = Thread.ofPlatform().daemon().name("chaos-head-job").start(this::read);
    }

    static HeadNodeJob start(SimulatedCluster cluster, String id, Path eventLog, List<String> command) {
        return new HeadNodeJob(id, eventLog, cluster.start("head", command));
    }

    private void read() {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        try (InputStream in = process.getInputStream()) {
            int b;
            while ((b = in.read()) >= 0) {
                if (b == '\n') {
                    String complete = line.toString(StandardCharsets.UTF_8);
                    text.append(complete).append('\n');
                    lines.add(new ClusterJob.TimedLine(System.nanoTime(), complete));
                    line.reset();
                } else {
                    line.write(b);
                }
            }
        } catch (IOException e) {
            // The process is gone: its output ends here.
        }
        if (line.size() > 0) {
            text.append(line.toString(StandardCharsets.UTF_8));
        }
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public long startedNanos() {
        return startedNanos;
    }

    @Override
    public boolean ended() {
        return !process.isAlive();
    }

    @Override
    public List<ClusterJob.TimedLine> linesAfter(long afterNanos) {
        return lines.stream().filter(l -> l.nanos() > afterNanos).toList();
    }

    @Override
    public String output() {
        return text.toString();
    }

    @Override
    public Path eventLog() {
        return eventLog;
    }

    @Override
    public int exitCode(long boundSeconds) throws Exception {
        if (!process.waitFor(boundSeconds, TimeUnit.SECONDS)) {
            throw new TimeoutException(id + ": mpirun-ft on the head node still runs after " + boundSeconds + " s");
        }
        reader.join(OUTPUT_DRAIN_MILLIS);
        return process.exitValue();
    }

    @Override
    public void abandon() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }
}
