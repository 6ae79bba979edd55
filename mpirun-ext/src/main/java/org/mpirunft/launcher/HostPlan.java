package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Where a job runs: its compute hosts, in rank order, and its spares, each with its slots. The
 * host list handed to mpirun names the compute hosts first and the spares after them, so the
 * ranks fill the compute hosts and the spares keep their slots free for replacements (PRRTE
 * spawns a replacement only into a free slot of a host that is in the job's allocation).
 * Immutable.
 *
 * @param compute compute hosts, in the order ranks are placed on them
 * @param spares  hosts kept free for replacements, in the order they are used
 * @param ranks   the job's size ({@code -np})
 * @param mapping how mpirun places ranks on the compute hosts
 */
public record HostPlan(List<HostSlot> compute, List<HostSlot> spares, int ranks, Mapping mapping) {
    /** How mpirun maps ranks to hosts; it decides the rank-to-node table. */
    public enum Mapping {
        /** Open MPI's default: fill each host's slots before the next host. */
        BY_SLOT,
        /** {@code --map-by node}: one rank per host in turn. */
        BY_NODE
    }

    public HostPlan {
        compute = List.copyOf(compute);
        spares = List.copyOf(spares);
        if (compute.isEmpty()) {
            throw new BadSettingException("--host", "no compute host to run ranks on");
        }
        if (ranks < 1) {
            throw new BadSettingException("-np", "must be at least 1, got " + ranks);
        }
        List<String> names = new ArrayList<>();
        for (HostSlot host : compute) {
            names.add(host.name());
        }
        for (HostSlot host : spares) {
            if (names.contains(host.name())) {
                throw new BadSettingException("--spares", host.name() + " is both a compute host and a spare");
            }
            names.add(host.name());
        }
        if (names.stream().distinct().count() != names.size()) {
            throw new BadSettingException("--host", "a host is listed twice: " + names);
        }
        int slots = compute.stream().mapToInt(HostSlot::slots).sum();
        if (ranks > slots) {
            throw new BadSettingException("-np", ranks + " ranks do not fit in the " + slots + " slots of " + hostArgument(compute)
                    + " (add hosts or slots, or lower -np)");
        }
    }

    /** The node of each rank, index = rank, as mpirun will place them. */
    public List<String> rankNodes() {
        List<String> nodes = new ArrayList<>(ranks);
        if (mapping == Mapping.BY_SLOT) {
            for (HostSlot host : compute) {
                for (int s = 0; s < host.slots() && nodes.size() < ranks; s++) {
                    nodes.add(host.name());
                }
            }
            return nodes;
        }
        int[] used = new int[compute.size()];
        while (nodes.size() < ranks) {
            for (int h = 0; h < compute.size() && nodes.size() < ranks; h++) {
                if (used[h] < compute.get(h).slots()) {
                    used[h]++;
                    nodes.add(compute.get(h).name());
                }
            }
        }
        return nodes;
    }

    /** mpirun's {@code --host} value: compute hosts, then spares, each with its slots. */
    public String hostArgument() {
        List<HostSlot> all = new ArrayList<>(compute);
        all.addAll(spares);
        return hostArgument(all);
    }

    /** The compute hosts alone, each with its slots: no node daemon goes to a spare (transparent mode). */
    public String computeHostArgument() {
        return hostArgument(compute);
    }

    /** The spares alone, each with its slots, as mpirun's {@code --host} value (the warm spares' app context). */
    public String spareHostArgument() {
        return hostArgument(spares);
    }

    /**
     * The spares as the rank library wants them ({@code MPIRUN_FT_SPARES}): one entry per
     * slot, in order of use, since the rank library places the n-th replacement on the n-th entry.
     */
    public List<String> spareSlots() {
        List<String> slots = new ArrayList<>();
        for (HostSlot spare : spares) {
            for (int s = 0; s < spare.slots(); s++) {
                slots.add(spare.name());
            }
        }
        return slots;
    }

    public List<String> spareNames() {
        return spares.stream().map(HostSlot::name).toList();
    }

    /**
     * The plan for a relaunch where each failed compute host of {@code replacements} (failed
     * host to its replacement) is replaced in its place. A replacement that is one of this
     * plan's spares leaves the spare list; it gets the failed host's slots, so the ranks map
     * exactly as before.
     */
    public HostPlan replace(Map<String, String> replacements) {
        List<HostSlot> newCompute = new ArrayList<>();
        for (HostSlot host : compute) {
            String to = replacements.get(host.name());
            newCompute.add(to == null ? host : new HostSlot(to, host.slots()));
        }
        Collection<String> taken = replacements.values();
        List<HostSlot> newSpares = spares.stream().filter(s -> !taken.contains(s.name())).toList();
        return new HostPlan(newCompute, newSpares, ranks, mapping);
    }

    /**
     * A plan on the nodes of a rank-to-node table (after in-place recoveries moved ranks to
     * spares): each node with as many slots as it has ranks, in order of first appearance, and
     * filled by slot. Each node keeps its number of ranks; which ranks it runs is the same only
     * when each node's ranks are contiguous, which does not matter for a relaunch, since every
     * rank can load its part from shared storage. Spares that now run ranks leave the spare list.
     */
    public static HostPlan fromRankTable(List<String> rankNodes, List<HostSlot> spares) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String node : rankNodes) {
            counts.merge(node, 1, Integer::sum);
        }
        List<HostSlot> compute = counts.entrySet().stream().map(e -> new HostSlot(e.getKey(), e.getValue())).toList();
        List<HostSlot> freeSpares = spares.stream().filter(s -> !counts.containsKey(s.name())).toList();
        return new HostPlan(compute, freeSpares, rankNodes.size(), Mapping.BY_SLOT);
    }

    private static String hostArgument(List<HostSlot> hosts) {
        return hosts.stream().map(HostSlot::toHostArgument).collect(Collectors.joining(","));
    }
}
