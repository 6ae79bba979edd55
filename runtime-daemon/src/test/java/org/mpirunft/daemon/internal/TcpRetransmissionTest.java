package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class TcpRetransmissionTest {
    /** Linux's own figures: 15 retries give an established connection up after 924.6 s under the default cap, a SYN after 127 s. */
    @Test
    void givesUpAsLinuxModelsItUnderTheDefaultCap() {
        assertEquals(924_600, TcpRetransmission.givesUpAfter(15, TcpRetransmission.ESTABLISHED_BASE_MILLIS, 120_000));
        assertEquals(127_000, TcpRetransmission.givesUpAfter(6, TcpRetransmission.SYN_BASE_MILLIS, 120_000));
    }

    /**
     * The defect the retry counts prevent: a 1 s cap with the default 15 retries gives up after
     * 14.4 s (measured: a loopback connection under a 20 s lock timed out after 16 s), so the
     * daemon raises them to outlive the longest lock.
     */
    @Test
    void aOneSecondCapNeedsMoreRetriesToOutliveALock() {
        assertEquals(14_400, TcpRetransmission.givesUpAfter(15, TcpRetransmission.ESTABLISHED_BASE_MILLIS, 1000));
        Duration lock = Duration.ofSeconds(140);
        int retries = TcpRetransmission.retriesToOutlast(lock, TcpRetransmission.ESTABLISHED_BASE_MILLIS, 1000);
        assertTrue(TcpRetransmission.givesUpAfter(retries, TcpRetransmission.ESTABLISHED_BASE_MILLIS, 1000) > lock.toMillis());
        assertTrue(TcpRetransmission.givesUpAfter(retries - 1, TcpRetransmission.ESTABLISHED_BASE_MILLIS, 1000) <= lock.toMillis(),
                "the fewest: " + retries);
        assertEquals(141, retries);
        assertTrue(TcpRetransmission.tooShort(Duration.ofSeconds(1), lock).isEmpty());
        assertTrue(TcpRetransmission.tooShort(Duration.ofSeconds(1), Duration.ofSeconds(300)).isPresent(), "past 255 retries");
    }

    /** The defect: read as Files.readString reads a file of size 0, the node's cap of 120000 ms was "1", and a count could be lowered. */
    @Test
    void aSysctlIsReadWholeInOneRead() throws Exception {
        assertEquals(Long.parseLong(java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/sys/net/ipv4/tcp_retries2")).getFirst()
                .strip()), TcpRetransmission.read(java.nio.file.Path.of("/proc/sys/net/ipv4/tcp_retries2")));
        assertTrue(TcpRetransmission.read(java.nio.file.Path.of("/proc/sys/net/ipv4/tcp_syn_retries")) > 1);
        assertTrue(TcpRetransmission.read(java.nio.file.Path.of("/proc/sys/net/ipv4/tcp_rto_min_us")) >= 1000, "more than one digit");
    }
}
