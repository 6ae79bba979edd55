package org.mpirunft.daemon.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * This node's share of a transparent job's network lock: an nftables table of its own per job,
 * {@code mpirunft_JOB}, that drops the job network's traffic and the job's own loopback
 * connections (Open MPI's node daemon talking to its ranks) from before any node dumps until
 * every node did. Not CRIU's lock: CRIU locks per dump and unlocks when its dump ends
 * ({@code --leave-running}), but the job's nodes are dumped one by one, and a packet that crossed
 * between two dumps would be in one image and not the other. Also destroys, after a stop, the
 * sockets the killed tree leaves behind the lock, and removes at the daemon's start the tables a
 * crashed predecessor left.
 */
final class JobNetworkLock {
    private static final Logger LOG = Logger.getLogger(JobNetworkLock.class.getName());

    private final String node;
    private final StepCommands commands;
    private final JobTree tree;
    /** The job's loopback ports each lock covers, by job: the stop that follows destroys their sockets. */
    private final Map<String, Set<Integer>> lockedPorts = new ConcurrentHashMap<>();

    JobNetworkLock(String node, StepCommands commands, JobTree tree) {
        this.node = node;
        this.commands = commands;
        this.tree = tree;
    }

    private static String table(String job) {
        return "mpirunft_" + job.replace('-', '_');
    }

    /** Drops the job network's traffic on this node, and the loopback traffic of the job's own sockets. */
    void lock(String job, String network) {
        Set<Integer> ports = new java.util.TreeSet<>();
        for (long root : tree.roots(job)) {
            ports.addAll(ProcSockets.loopbackPorts(JobTree.treePids(root)));
        }
        lockedPorts.put(job, ports);
        String loopback = loopbackRules("iifname", ports);
        String out = loopbackRules("oifname", ports);
        // Priority -300: before connection tracking and any site firewall.
        String rules = "table inet " + table(job) + " {\n"
                + "  chain input { type filter hook input priority -300; policy accept; ip saddr " + network + " drop;" + loopback + " }\n"
                + "  chain output { type filter hook output priority -300; policy accept; ip daddr " + network + " drop;" + out + " }\n"
                + "}\n";
        unlock(job);
        commands.run("locking the job network", List.of("nft", "-f", "-"), rules);
    }

    void unlock(String job) {
        commands.runQuietly(List.of("nft", "delete", "table", "inet", table(job)));
    }

    /** The job is over: the ports its last lock covered are no longer needed. */
    void forget(String job) {
        lockedPorts.remove(job);
    }

    /**
     * Removes the network locks a previous daemon of this node left: a lock lasts one dump or
     * restore, so a table at the daemon's start is one a crashed daemon held when it died (its
     * step failed, and with it the epoch or restore); kept, it would drop the job network's
     * traffic to this node for good. Returns the tables removed.
     */
    List<String> removeLeftLocks() {
        List<String> removed = new ArrayList<>();
        String tables;
        try {
            tables = commands.run("listing the firewall's tables", List.of("nft", "list", "tables", "inet"), null);
        } catch (IllegalStateException e) {
            LOG.warning(node + ": cannot look for network locks a previous daemon left: " + e.getMessage());
            return removed;
        }
        for (String line : tables.split("\n")) {
            String[] words = line.strip().split("\\s+");
            if (words.length == 3 && words[0].equals("table") && words[1].equals("inet") && words[2].startsWith("mpirunft_")) {
                commands.runQuietly(List.of("nft", "delete", "table", "inet", words[2]));
                removed.add(words[2]);
            }
        }
        if (!removed.isEmpty()) {
            LOG.warning(node + ": removed the network locks " + removed + " a previous daemon left (it stopped during a dump or restore)");
        }
        return removed;
    }

    /**
     * Destroys the sockets a stopped part of the job left on the job network and on the loopback
     * ports its lock covers: a killed process's connection lingers (its FIN is dropped), and CRIU
     * cannot bind the restored one on the same address and port.
     */
    void dropSocketsOf(String job, String network) {
        StringBuilder filter = new StringBuilder("( src " + network + " or dst " + network);
        for (int port : lockedPorts.getOrDefault(job, Set.of())) {
            filter.append(" or sport = :").append(port);
        }
        filter.append(" )");
        commands.runQuietly(List.of("ss", "-K", "-tan", filter.toString()));
    }

    /** Drops the job's loopback connections in one direction ({@code iifname} or {@code oifname}); none without ports. */
    private static String loopbackRules(String direction, Set<Integer> ports) {
        return ports.isEmpty() ? "" : " " + direction + " \"lo\" tcp sport " + set(ports) + " drop; " + direction + " \"lo\" tcp dport "
                + set(ports) + " drop;";
    }

    private static String set(Set<Integer> ports) {
        return "{ " + String.join(", ", ports.stream().map(String::valueOf).toList()) + " }";
    }
}
