package org.mpirunft.membership.internal;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.jgroups.Address;
import org.jgroups.Event;
import org.jgroups.PhysicalAddress;
import org.jgroups.blocks.cs.BaseServer;
import org.jgroups.blocks.cs.Connection;
import org.jgroups.blocks.cs.ConnectionListener;
import org.jgroups.protocols.TCP;
import org.jgroups.protocols.TP;

/**
 * Closes this member's TCP connections to the members a new view removes, while the view goes
 * down to the transport, without the goodbye the transport's own close writes first.
 *
 * <p>Why: JGroups' {@code TCP} closes the connection to a removed member gracefully: it writes a
 * close marker under the connection's output-stream lock. On a cut link whose send buffer is
 * full, the per-peer sender holds that lock in a write that never returns, so the view's
 * installation waits on it for as long as the link stays cut. A cut-off coordinator then never
 * installs the view that leaves it alone, never finds itself in a minority, and its node is never
 * fenced (HangAndCutIT: the cut node's daemon's threads showed GMS's installView blocked on that
 * lock behind a bundler's socket write; FullLinkIT does the same with a stopped member). Closing
 * the socket ends the blocked write, and the transport's close goes on. The transport takes a
 * removed member's connection out of its table before it closes it, and a sender with messages
 * still queued for the member connects again at once (a stopped process's kernel still accepts),
 * so the connections are tracked as the transport opens them, and closed again every {@link
 * #CLOSE_AGAIN} until the view has gone down ({@link #closeWhile}).
 *
 * <p>A removed member that is alive (it left, or was wrongly suspected) only loses a connection
 * the transport opens again on its next message. Only {@code TCP} is concerned: {@code TCP_NIO2}
 * never blocks a sender, and other transports (the tests' in-process ones) hold no socket.
 * {@code TCP} keeps its server in a protected field with no accessor; if a JGroups version
 * renames it, {@link #attach} finds nothing and says so once.
 */
final class RemovedMemberLinks implements ConnectionListener {
    /** How often the connections are closed again while the view goes down. */
    static final Duration CLOSE_AGAIN = Duration.ofMillis(50);
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");
    private static final Field SERVER = serverField();
    private static volatile boolean missingReported;

    /** Ends the closing again ({@link #closeWhile}). */
    interface Closing extends AutoCloseable {
        @Override
        void close();
    }

    private final TP transport;
    /** The transport's connections, as it opened them; closed ones leave as they are seen closed. */
    private final Set<Connection> open = ConcurrentHashMap.newKeySet();

    private RemovedMemberLinks(TP transport) {
        this.transport = transport;
    }

    /** Follows {@code transport}'s connections from now on; empty if it is no {@code TCP}, or its server is out of reach. */
    static Optional<RemovedMemberLinks> attach(TP transport) {
        if (!(transport instanceof TCP tcp) || SERVER == null) {
            return Optional.empty();
        }
        BaseServer server;
        try {
            server = (BaseServer) SERVER.get(tcp);
        } catch (IllegalAccessException | ClassCastException e) {
            reportMissing(e.toString());
            return Optional.empty();
        }
        if (server == null) {
            return Optional.empty();
        }
        RemovedMemberLinks links = new RemovedMemberLinks(transport);
        server.addConnectionListener(links);
        server.forAllConnections((peer, connection) -> links.open.add(connection));
        return Optional.of(links);
    }

    /** The members of {@code previous} that {@code next} no longer has. */
    static List<Address> removed(Collection<Address> previous, Set<Address> next) {
        List<Address> removed = new ArrayList<>();
        for (Address member : previous) {
            if (!next.contains(member)) {
                removed.add(member);
            }
        }
        return removed;
    }

    @Override
    public void connectionEstablished(Connection connection) {
        open.add(connection);
    }

    @Override
    public void connectionClosed(Connection connection) {
        open.remove(connection);
    }

    /**
     * Closes the connections to {@code members} now, then again every {@link #CLOSE_AGAIN} on a
     * virtual thread until the returned handle is closed; {@code closed} counts them.
     */
    Closing closeWhile(Collection<Address> members, LongAdder closed) {
        if (members.isEmpty()) {
            return () -> { };
        }
        List<PhysicalAddress> targets = new ArrayList<>();
        for (Address member : members) {
            if (transport.down(new Event(Event.GET_PHYSICAL_ADDRESS, member)) instanceof PhysicalAddress physical) {
                targets.add(physical);
            }
        }
        closed.add(close(targets));
        AtomicBoolean over = new AtomicBoolean();
        Thread again = Thread.ofVirtual().name("close-removed-member-links").start(() -> {
            while (!over.get()) {
                LockSupport.parkNanos(CLOSE_AGAIN.toNanos());
                if (!over.get()) {
                    closed.add(close(targets));
                }
            }
        });
        return () -> {
            over.set(true);
            LockSupport.unpark(again);
        };
    }

    /** Closes, socket first and without a goodbye, the open connections to {@code targets}; returns how many. */
    private int close(List<PhysicalAddress> targets) {
        int closed = 0;
        for (Connection connection : open) {
            if (connection.isClosed()) {
                open.remove(connection);
            } else if (targets.contains(connection.peerAddress())) {
                try {
                    connection.close(false);
                    closed++;
                } catch (java.io.IOException | RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, () -> "closing the connection to " + connection.peerAddress() + ": " + e);
                }
                open.remove(connection);
            }
        }
        return closed;
    }

    private static Field serverField() {
        try {
            Field field = TCP.class.getDeclaredField("srv");
            field.setAccessible(true);
            return field;
        } catch (NoSuchFieldException | RuntimeException e) {
            reportMissing(e.toString());
            return null;
        }
    }

    private static void reportMissing(String why) {
        if (!missingReported) {
            missingReported = true;
            LOG.log(System.Logger.Level.WARNING, () -> "cannot reach JGroups TCP's connections (" + why + "): a member cut off"
                    + " while its send buffer is full may not install a view that removes members until the link is back");
        }
    }
}
