package org.mpirunft.launcher;

import java.nio.file.Path;
import java.time.Duration;
import org.mpirunft.bridge.internal.RankChannel;
import org.mpirunft.common.rank.RankMessage;

/**
 * A process that says it is rank 0 of a job on a node's rank channel, as another user might try:
 * {@code RankChannelProbe SOCKET JOB} prints {@code WELCOMED}, or {@code REFUSED: } and the
 * daemon's one line.
 */
public final class RankChannelProbe {
    private RankChannelProbe() {
    }

    public static void main(String[] args) {
        RankMessage.Hello hello = new RankMessage.Hello(RankMessage.VERSION, args[1], 0, ProcessHandle.current().pid(), false);
        try (RankChannel channel = RankChannel.connect(Path.of(args[0]), hello, Duration.ofSeconds(10), order -> { })) {
            System.out.println("WELCOMED");
        } catch (RuntimeException e) {
            System.out.println("REFUSED: " + e.getMessage());
        }
    }
}
