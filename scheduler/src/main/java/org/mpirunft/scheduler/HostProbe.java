package org.mpirunft.scheduler;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.mpirunft.membership.Member;

/**
 * Whether a member that failed out of the view crashed on a host that runs on. The probe
 * connects to the member's control port, where a daemon speaks first (its peer port's
 * challenge):
 * <ul>
 *   <li>refused: the host's kernel answers for a port nobody listens on: the daemon is gone,
 *       the host runs (yes);</li>
 *   <li>accepted, and something said within the bound: a daemon listens there again, a new one
 *       already started after the crash (yes);</li>
 *   <li>accepted, and nothing said: the kernel completed the handshake for a daemon that does
 *       not run, a hung one (no);</li>
 *   <li>no answer within the bound, or no route: a dead or cut-off host (no).</li>
 * </ul>
 */
@FunctionalInterface
public interface HostProbe {
    /** Never says yes: every failed member is a lost node, as with no probe at all. */
    HostProbe NONE = member -> CompletableFuture.completedFuture(false);

    /** Completes with whether {@code member}'s daemon crashed while its host runs on; never exceptionally. */
    CompletableFuture<Boolean> daemonGoneHostUp(Member member);

    /** The probe above, bounded by {@code bound} in all, off the caller's thread. */
    static HostProbe tcp(Duration bound) {
        return member -> {
            InetSocketAddress given = member.metadata().controlAddress();
            if (isLoopback(given.getHostString())) {
                // Daemons on one host (tests on loopback): a refusal there says nothing of a node's
                // host. Answered at once, so such a group decides as it would without a probe.
                return CompletableFuture.completedFuture(false);
            }
            return CompletableFuture.supplyAsync(() -> probe(given, bound), command -> Thread.ofVirtual().start(command));
        };
    }

    private static boolean isLoopback(String host) {
        return host.equals("localhost") || host.startsWith("127.") || host.equals("::1") || host.equals("0:0:0:0:0:0:0:1");
    }

    private static boolean probe(InetSocketAddress given, Duration bound) {
        InetSocketAddress address = given.isUnresolved() ? new InetSocketAddress(given.getHostString(), given.getPort()) : given;
        if (address.isUnresolved() || address.getAddress().isLoopbackAddress()) {
            return false;
        }
        long deadline = System.nanoTime() + bound.toNanos();
        try (Socket socket = new Socket()) {
            socket.connect(address, (int) Math.max(1, bound.toMillis()));
            socket.setSoTimeout((int) Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
            InputStream in = socket.getInputStream();
            in.read();
            return true;
        } catch (ConnectException e) {
            // Only a refusal is the host's answer; "No route to host" and the like are none.
            return e.getMessage() != null && e.getMessage().contains("refused");
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }
}
