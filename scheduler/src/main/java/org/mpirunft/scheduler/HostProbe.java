package org.mpirunft.scheduler;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.mpirunft.membership.Member;

/**
 * Whether a member that failed out of the view crashed on a host that runs on: its host refuses
 * a connection to the member's control port (the kernel answers for a process that is gone). A
 * hung daemon's port still accepts (the kernel completes the handshake into its backlog), and a
 * dead or cut-off host does not answer within the bound: both are no.
 */
@FunctionalInterface
public interface HostProbe {
    /** Never says yes: every failed member is a lost node, as with no probe at all. */
    HostProbe NONE = member -> CompletableFuture.completedFuture(false);

    /** Completes with whether {@code member}'s daemon is gone while its host answers; never exceptionally. */
    CompletableFuture<Boolean> daemonGoneHostUp(Member member);

    /** A TCP connect to the member's control address, bounded by {@code bound}, off the caller's thread. */
    static HostProbe tcp(Duration bound) {
        return member -> CompletableFuture.supplyAsync(() -> {
            InetSocketAddress given = member.metadata().controlAddress();
            InetSocketAddress address = given.isUnresolved() ? new InetSocketAddress(given.getHostString(), given.getPort()) : given;
            if (address.isUnresolved() || address.getAddress().isLoopbackAddress()) {
                // Daemons on one host (tests on loopback): a refusal there says nothing of a node's host.
                return false;
            }
            try (Socket socket = new Socket()) {
                socket.connect(address, (int) bound.toMillis());
                return false;
            } catch (ConnectException e) {
                // "Connection refused": a reset from a live host. A timeout or no route is a ConnectException too on
                // some paths ("No route to host"), which is no answer from the host: only a refusal counts.
                return e.getMessage() != null && e.getMessage().contains("refused");
            } catch (IOException | RuntimeException e) {
                return false;
            }
        }, command -> Thread.ofVirtual().start(command));
    }
}
