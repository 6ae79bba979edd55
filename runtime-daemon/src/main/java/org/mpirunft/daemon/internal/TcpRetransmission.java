package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * The node's TCP retransmission settings for transparent jobs, in the daemon's network namespace
 * (on a cluster the node's own; in the simulated cluster each node's namespace).
 *
 * <p><b>Why.</b> A checkpoint's lock drops the job's TCP traffic for the length of its dumps, and
 * every retransmission it drops doubles the sender's retransmission timeout, up to Linux's cap
 * ({@code net.ipv4.tcp_rto_max_ms}, 120 s by default). With locks of seconds every few seconds
 * the timers compound, and a message waits tens of seconds past an unlock. A cap of about a
 * second bounds that wait by the cap. The kernel copies the cap into a socket when it is made, so
 * the daemon sets it when it starts, before any job's socket exists; CRIU's restored sockets are
 * new sockets and get it too.
 *
 * <p><b>What else must change with it.</b> Linux gives a connection up after {@code
 * tcp_retries2} (and a connect after {@code tcp_syn_retries}) retransmissions, counted in
 * time as the doubling from the initial timeout up to the cap, then the cap each
 * ({@link #givesUpAfter}). A lower cap shortens that: with 1 s, the default 15 retries give up
 * after 14.4 s, and a lock longer than that would reset the job's connections. So the daemon
 * raises both counts (never lowers them) until a connection outlives the longest lock the
 * coordinator can hold, {@code longestLock}, as far as Linux allows (255 and 127).
 */
public final class TcpRetransmission {
    private static final Logger LOG = Logger.getLogger(TcpRetransmission.class.getName());
    /** Linux's TCP_RTO_MIN: the first retransmission timeout of an established connection (at least). */
    static final long ESTABLISHED_BASE_MILLIS = 200;
    /** Linux's TCP_TIMEOUT_INIT: the first timeout of a SYN. */
    static final long SYN_BASE_MILLIS = 1000;
    /** Linux's largest tcp_retries2 (a u8). */
    static final int MAX_RETRIES = 255;
    /** Linux's largest tcp_syn_retries. */
    static final int MAX_SYN_RETRIES = 127;

    private static final Path SYSCTL = Path.of("/proc/sys/net/ipv4");

    private TcpRetransmission() {
    }

    /**
     * How long Linux retransmits before it gives a connection up, after {@code retries}
     * retransmissions from {@code baseMillis} doubling up to {@code capMillis} (the kernel's
     * {@code tcp_model_timeout}).
     */
    static long givesUpAfter(int retries, long baseMillis, long capMillis) {
        int linear = 63 - Long.numberOfLeadingZeros(Math.max(1, capMillis / baseMillis));
        if (retries <= linear) {
            return ((2L << retries) - 1) * baseMillis;
        }
        return ((2L << linear) - 1) * baseMillis + (retries - linear) * capMillis;
    }

    /** The fewest retransmissions from {@code baseMillis} under {@code capMillis} that outlast {@code lock}. */
    static int retriesToOutlast(Duration lock, long baseMillis, long capMillis) {
        int retries = 0;
        while (givesUpAfter(retries, baseMillis, capMillis) <= lock.toMillis() && retries < 100_000) {
            retries++;
        }
        return retries;
    }

    /**
     * Why {@code cap} is too short for locks of up to {@code longestLock}, or empty: an
     * established connection must outlive the lock within Linux's largest {@code tcp_retries2}.
     */
    public static Optional<String> tooShort(Duration cap, Duration longestLock) {
        int needed = retriesToOutlast(longestLock, ESTABLISHED_BASE_MILLIS, cap.toMillis());
        if (needed <= MAX_RETRIES) {
            return Optional.empty();
        }
        long least = Math.ceilDiv(longestLock.toMillis(), MAX_RETRIES - 2);
        return Optional.of("must let a connection outlive a lock of up to " + longestLock.toSeconds() + " s (twice the peer reply bound,"
                + " transparent.timeout + 10 s), which with " + cap.toMillis() + " ms takes more than Linux's " + MAX_RETRIES
                + " tcp_retries2; set it to at least " + Math.ceilDiv(least, 1000) + "s or lower transparent.timeout");
    }

    /**
     * Sets this namespace's cap to {@code cap} and raises the retry counts so that connections
     * outlive {@code longestLock}; says in the log what it set, from what. On a kernel without
     * the cap (before Linux 6.15) or a read-only {@code /proc/sys}, says so and changes nothing.
     */
    static void apply(String node, Duration cap, Duration longestLock) {
        Path rtoMax = SYSCTL.resolve("tcp_rto_max_ms");
        if (!Files.exists(rtoMax)) {
            LOG.warning(node + ": this kernel has no net.ipv4.tcp_rto_max_ms (Linux 6.15 and later): transparent jobs' messages may"
                    + " wait up to 120 s after a checkpoint's lock (runtime-daemon README, Known limits)");
            return;
        }
        try {
            long wasCap = read(rtoMax);
            long capMillis = cap.toMillis();
            int wasRetries = (int) read(SYSCTL.resolve("tcp_retries2"));
            int wasSyn = (int) read(SYSCTL.resolve("tcp_syn_retries"));
            int retries = Math.max(wasRetries, Math.min(MAX_RETRIES, retriesToOutlast(longestLock, ESTABLISHED_BASE_MILLIS, capMillis)));
            int syn = Math.max(wasSyn, Math.min(MAX_SYN_RETRIES, retriesToOutlast(longestLock, SYN_BASE_MILLIS, capMillis)));
            // The counts first: between the two writes connections must never give up sooner than before.
            write(SYSCTL.resolve("tcp_retries2"), retries);
            write(SYSCTL.resolve("tcp_syn_retries"), syn);
            write(rtoMax, capMillis);
            LOG.info(() -> node + ": transparent mode: net.ipv4.tcp_rto_max_ms " + capMillis + " (was " + wasCap + "), tcp_retries2 "
                    + retries + " (was " + wasRetries + "), tcp_syn_retries " + syn + " (was " + wasSyn + ") in this daemon's network"
                    + " namespace: after a checkpoint's lock the job's TCP retransmits within " + capMillis + " ms; a connection gives up"
                    + " after " + givesUpAfter(retries, ESTABLISHED_BASE_MILLIS, capMillis) / 1000 + " s, a connect after "
                    + givesUpAfter(syn, SYN_BASE_MILLIS, capMillis) / 1000 + " s (the longest lock: " + longestLock.toSeconds() + " s)");
        } catch (IOException | NumberFormatException e) {
            LOG.warning(node + ": cannot set net.ipv4.tcp_rto_max_ms and the retry counts (" + e.getMessage() + "): transparent jobs'"
                    + " messages may wait up to 120 s after a checkpoint's lock (runtime-daemon README, Known limits)");
        }
    }

    /**
     * One read of the whole value: a sysctl file answers only a read from offset 0, so a reader
     * that probes with one byte first (as {@code Files.readString} does with a file of size 0, as
     * /proc's are) gets the first digit alone.
     */
    static long read(Path file) throws IOException {
        try (var in = Files.newInputStream(file)) {
            byte[] buffer = new byte[64];
            int n = in.read(buffer);
            return Long.parseLong(new String(buffer, 0, Math.max(0, n), java.nio.charset.StandardCharsets.US_ASCII).strip());
        }
    }

    private static void write(Path file, long value) throws IOException {
        Files.writeString(file, Long.toString(value));
    }
}
