package org.mpirunft.daemon.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.logging.Logger;
import org.mpirunft.daemon.FtdConfig;
import org.mpirunft.daemon.protocol.PeerMessage.TransparentPart;

/**
 * This node's job interface ({@code transparent.interface}) as transparent jobs use it: the job
 * network it holds, the floating address a part's tree runs on, and the addresses of lost nodes
 * it takes over to restore their parts (a spare's restored sockets are bound to the lost node's
 * address), made ready for a restore and given back once the job is over.
 */
final class JobInterface {
    private static final Logger LOG = Logger.getLogger(JobInterface.class.getName());

    private final String node;
    /** Its name ({@code transparent.interface}) and the interface a missing one is made on ({@code transparent.parent}). */
    private final FtdConfig.Transparent settings;
    private final StepCommands commands;
    /**
     * The floating addresses this node took over for each job (a lost node's, for the part it
     * restored). Given back when the job is over: left here, an address would answer for a node
     * that comes back with it, and every connection to that node would reach this one. Kept in
     * memory: a daemon that crashed meanwhile leaves them (its successor does not know them).
     */
    private final ConcurrentMap<String, Set<String>> addressesTaken = new ConcurrentHashMap<>();

    JobInterface(String node, FtdConfig.Transparent settings, StepCommands commands) {
        this.node = node;
        this.settings = settings;
        this.commands = commands;
    }

    /** The job network (CIDR) as this node's job interface holds it: the network of its first IPv4 address. */
    String jobNetwork() {
        try {
            java.net.NetworkInterface iface = java.net.NetworkInterface.getByName(settings.jobInterface());
            if (iface != null) {
                for (java.net.InterfaceAddress address : iface.getInterfaceAddresses()) {
                    if (address.getAddress() instanceof java.net.Inet4Address v4) {
                        int prefix = address.getNetworkPrefixLength();
                        byte[] bytes = v4.getAddress();
                        int value = java.nio.ByteBuffer.wrap(bytes).getInt();
                        int mask = prefix == 0 ? 0 : -1 << (32 - prefix);
                        byte[] net = java.nio.ByteBuffer.allocate(4).putInt(value & mask).array();
                        return java.net.InetAddress.getByAddress(net).getHostAddress() + "/" + prefix;
                    }
                }
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException(node + ": cannot read the job interface " + settings.jobInterface() + ": " + e.getMessage(), e);
        }
        throw new IllegalStateException(node + ": the job interface " + settings.jobInterface()
                + " has no IPv4 address here; transparent mode needs one on every node that runs its jobs, the launcher's and the"
                + " spares' included (transparent.interface)");
    }

    /** The floating address (CIDR) the tree at {@code root} runs on, from its sockets' {@code endpoints} ({@link #treeAddress}). */
    String addressOf(long root, List<String> endpoints) {
        return treeAddress(interfaceAddresses(root), endpoints);
    }

    /** The IPv4 addresses (CIDR) of the job interface as the tree sees it, in the kernel's order (the node's own first). */
    private List<String> interfaceAddresses(long root) {
        String out = commands.run("reading the job network's address", List.of("nsenter", "-t", Long.toString(root), "-n", "ip", "-o", "-4",
                "addr", "show", "dev", settings.jobInterface()), null);
        List<String> addresses = new ArrayList<>();
        for (String word : out.split("\\s+")) {
            if (word.matches("\\d+\\.\\d+\\.\\d+\\.\\d+/\\d+")) {
                addresses.add(word);
            }
        }
        if (addresses.isEmpty()) {
            throw new IllegalStateException(node + ": the job interface " + settings.jobInterface() + " has no IPv4 address");
        }
        return addresses;
    }

    /**
     * The floating address a part is restored with: the one of the job interface's addresses
     * ({@code addresses}, CIDR) that the tree's sockets are bound to ({@code endpoints},
     * {@code ADDRESS:PORT}). A spare that restored a lost node's part holds that node's address
     * besides its own, and its tree runs on the lost node's: the next restore of this part, on
     * another spare, must take that one. A tree with no socket on the job network: the first.
     */
    static String treeAddress(List<String> addresses, List<String> endpoints) {
        for (String address : addresses) {
            String ip = address.substring(0, address.indexOf('/'));
            if (endpoints.stream().anyMatch(e -> e.startsWith(ip + ":"))) {
                return address;
            }
        }
        return addresses.get(0);
    }

    /**
     * Makes the job network ready for {@code part} of {@code job} to be restored here: the lost
     * node's address taken over when the part is not this node's own ({@code own}), the
     * neighbours' stale addresses forgotten, and every socket left on the part's endpoints dropped.
     */
    void readyFor(String job, TransparentPart part, boolean own) {
        if (!own) {
            takeAddress(part.address());
            addressesTaken.computeIfAbsent(job, j -> ConcurrentHashMap.newKeySet()).add(part.address());
        }
        commands.runQuietly(List.of("ip", "neigh", "flush", "dev", settings.jobInterface()));
        dropSocketsOn(part.endpoints());
    }

    /** Gives back the floating addresses taken over for {@code job}, which is over. */
    void giveBackAddresses(String job) {
        Set<String> taken = addressesTaken.remove(job);
        if (taken == null) {
            return;
        }
        for (String address : taken) {
            commands.runQuietly(List.of("ip", "addr", "del", address, "dev", settings.jobInterface()));
            LOG.info(() -> node + ": gave back floating address " + address + " taken over for " + job + ", which is over");
        }
    }

    /**
     * Drops every TCP socket here bound to one of {@code endpoints}, whatever its state: the
     * connections Open MPI closed itself after the node loss (its abort runs before the
     * scheduler's decision, so before our lock) wait in TIME_WAIT, and one on the local port of a
     * restored listener makes CRIU's bind fail ("Address already in use").
     */
    private void dropSocketsOn(List<String> endpoints) {
        for (int from = 0; from < endpoints.size(); from += 64) {
            List<String> some = endpoints.subList(from, Math.min(endpoints.size(), from + 64));
            commands.runQuietly(List.of("ss", "-K", "-tan", "( " + String.join(" or ", some.stream().map(e -> "src " + e).toList()) + " )"));
        }
    }

    /** Puts a lost node's floating address on this node's job interface, creating it as a macvlan of the parent if needed. */
    private void takeAddress(String address) {
        String iface = settings.jobInterface();
        if (!Files.exists(Path.of("/sys/class/net", iface))) {
            commands.run("creating " + iface, List.of("ip", "link", "add", iface, "link", settings.parent(), "type", "macvlan", "mode", "bridge"),
                    null);
        }
        commands.runQuietly(List.of("ip", "addr", "add", address, "dev", iface));
        commands.run("bringing " + iface + " up", List.of("ip", "link", "set", iface, "up"), null);
        LOG.info(() -> node + ": took over floating address " + address + " on " + iface);
    }
}
