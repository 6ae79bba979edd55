package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.mpirunft.membership.Member;

/**
 * Fences a node the group declared failed off Open MPI's runtime on this node, by severing this
 * node's TCP connections to it. Open MPI's runtime notices a lost node daemon only when its TCP
 * connection drops (an Open MPI maintainer's statement, open-mpi/ompi#13215), and a hung or
 * cut-off node drops none: the survivors would declare its ranks lost to their own MPI library,
 * but mpirun would still count on its node daemon, and a replacement's spawn then waits on it
 * (always, when the node runs rank 0 and so the job's first node daemon). Once the connections
 * are cut, Open MPI takes the node for dead exactly as it takes a crashed one, and the recovery
 * is the same as for a kill. The node itself fences its own side when it wakes (self-fencing on
 * expulsion), so both sides agree that it is out.
 *
 * <p>Severing uses the kernel's socket-destroy operation through {@code ss -K} (iproute2, Linux
 * with {@code CONFIG_INET_DIAG_DESTROY}), the one tool that closes established connections of
 * other processes. It runs off the caller's thread: the membership thread must not wait on it.
 */
public final class RuntimeFence implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(RuntimeFence.class.getName());
    private static final long SEVER_BOUND_SECONDS = 10;

    /** Closes this node's TCP connections whose far end is {@code address}; returns how many were closed. */
    @FunctionalInterface
    public interface Severer {
        int sever(InetAddress address) throws IOException, InterruptedException;
    }

    private final String node;
    private final Severer severer;
    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "ftd-runtime-fence");
        t.setDaemon(true);
        return t;
    });

    public RuntimeFence(String node, Severer severer) {
        this.node = node;
        this.severer = severer;
    }

    /** The fence of a real node: {@code ss -K} in this node's network namespace. */
    public static RuntimeFence withSs(String node) {
        return new RuntimeFence(node, RuntimeFence::ssKill);
    }

    /** Severs, in the background, this node's connections to {@code failed}'s address. */
    public void fence(Member failed) {
        String host = failed.metadata().controlAddress().getHostString();
        worker.execute(() -> {
            try {
                InetAddress address = InetAddress.getByName(host);
                if (address.isLoopbackAddress()) {
                    // Daemons on one host (tests on loopback): every connection would match; there is no runtime to fence.
                    LOG.fine(() -> node + ": not fencing " + failed.name() + ": its address " + host + " is loopback");
                    return;
                }
                int closed = severer.sever(address);
                LOG.info(() -> node + ": fenced " + failed.name() + " off the MPI runtime: closed " + closed
                        + " TCP connection(s) to " + host);
            } catch (UnknownHostException e) {
                LOG.warning(node + ": cannot fence " + failed.name() + ": unknown address " + host);
            } catch (IOException e) {
                LOG.warning(node + ": cannot fence " + failed.name() + " off the MPI runtime (" + e.getMessage()
                        + "); a hung or cut-off node is then noticed by Open MPI only when its connections time out");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** {@code ss -K -tn dst ADDRESS}: kills the matching sockets and lists them; the count is the listed lines. */
    static int ssKill(InetAddress address) throws IOException, InterruptedException {
        return severWith(List.of("ss", "-K", "-H", "-tn", "dst", address.getHostAddress()), Duration.ofSeconds(SEVER_BOUND_SECONDS));
    }

    /**
     * Runs {@code command} (a severer that lists what it closed, a line each) for at most
     * {@code bound}; its output is read off this thread, so a command that hangs with its output
     * open is killed at the bound, and the fence's one thread goes on to the next node.
     */
    static int severWith(List<String> command, Duration bound) throws IOException, InterruptedException {
        Process ss = new ProcessBuilder(command).redirectErrorStream(true).start();
        java.util.concurrent.CompletableFuture<String> out = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        }, task -> Thread.ofVirtual().start(task));
        if (!ss.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
            ss.descendants().forEach(ProcessHandle::destroyForcibly);
            ss.destroyForcibly();
            throw new IOException(command.getFirst() + " did not finish within " + org.mpirunft.common.Durations.format(bound));
        }
        String said = out.join();
        if (ss.exitValue() != 0) {
            throw new IOException(command.getFirst() + " exited with " + ss.exitValue() + ": " + said.strip());
        }
        return (int) said.lines().filter(line -> !line.isBlank()).count();
    }

    @Override
    public void close() {
        worker.shutdownNow();
    }
}
