package org.mpirunft.testkit;

import java.time.Instant;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The line {@code scripts/cluster kill NODE} ends with: {@code node node3 killed (SIGKILL at
 * 1795683129.445123); ...}. A failure's detection is measured from that instant, when the first
 * signal went, not from the script's start: the shell's own start-up on a busy machine is not
 * the failure's.
 */
public final class ClusterKill {
    private static final Pattern SIGNALLED = Pattern.compile("SIGKILL at (\\d+)[.,](\\d{1,9})");

    private ClusterKill() {
    }

    /** When the first SIGKILL went, from the script's output; empty if it does not say (nothing was running there). */
    public static Optional<Instant> signalledAt(String output) {
        Matcher m = SIGNALLED.matcher(output);
        if (!m.find()) {
            return Optional.empty();
        }
        String nanos = (m.group(2) + "000000000").substring(0, 9);
        return Optional.of(Instant.ofEpochSecond(Long.parseLong(m.group(1)), Long.parseLong(nanos)));
    }
}
