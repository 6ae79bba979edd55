package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;
import java.util.stream.Collectors;
import org.mpirunft.daemon.protocol.ControlReply;

/**
 * Decides a job's {@link HostPlan} at launch, from what the user gave ({@code --host},
 * {@code --hostfile}, {@code -np}, {@code --spares}) and the daemons' view of the cluster.
 *
 * <ul>
 *   <li>Compute hosts: the user's hosts; without any, the view's compute nodes that are not drained, with their slots.</li>
 *   <li>Ranks: {@code -np}; without it, every compute slot, as mpirun does.</li>
 *   <li>Spares: the user's hosts beyond those {@code -np} ranks fill, in order; then the view's
 *       spare nodes that have a free slot and are not drained, least loaded first (the scheduler's default choice).
 *       Each spare gets as many slots as the largest compute host, so it can take the ranks of
 *       a whole failed node, unless the user's host list or the daemon says otherwise.</li>
 * </ul>
 * Pure: it reads a hostfile if given, and nothing else.
 */
public final class HostPlanner {
    private static final Logger LOG = Logger.getLogger(HostPlanner.class.getName());
    private static final String SPARE_ROLE = "spare";
    private static final String COMPUTE_ROLE = "compute";

    private HostPlanner() {
    }

    /**
     * @param userHosts     hosts from {@code --host}/{@code --hostfile}, in order; may be empty
     * @param ranks         {@code -np}, if given
     * @param spares        spares wanted
     * @param sparesStrict  whether too few spares is an error (the user asked for them) or a warning
     * @param mapping       from {@code --map-by}
     * @param members       the daemons' view; empty when unknown
     */
    public static HostPlan plan(List<HostSlot> userHosts, Optional<Integer> ranks, int spares, boolean sparesStrict,
                                HostPlan.Mapping mapping, List<ControlReply.MemberStatus> members) {
        return plan(userHosts, ranks, spares, sparesStrict, mapping, members, false);
    }

    /**
     * As above; with {@code onlyListed} (the hosts are a batch allocation's, {@link SlurmAllocation}),
     * the spares come from the listed hosts only: a job never leaves its allocation.
     */
    public static HostPlan plan(List<HostSlot> userHosts, Optional<Integer> ranks, int spares, boolean sparesStrict,
                                HostPlan.Mapping mapping, List<ControlReply.MemberStatus> members, boolean onlyListed) {
        if (spares < 0) {
            throw new BadSettingException("--spares", "must be 0 or more, got " + spares);
        }
        List<HostSlot> hosts = userHosts.isEmpty() ? computeMembers(members) : userHosts;
        int jobSize = ranks.orElseGet(() -> hosts.stream().mapToInt(HostSlot::slots).sum());
        if (jobSize < 1) {
            throw new BadSettingException("-np", "must be at least 1, got " + jobSize);
        }
        List<HostSlot> compute = new ArrayList<>();
        List<HostSlot> rest = new ArrayList<>();
        int placed = 0;
        for (HostSlot host : hosts) {
            if (placed < jobSize) {
                compute.add(host);
                placed += host.slots();
            } else {
                rest.add(host);
            }
        }
        int spareSlots = compute.stream().mapToInt(HostSlot::slots).max().orElse(1);
        List<HostSlot> chosen = new ArrayList<>(rest.subList(0, Math.min(spares, rest.size())));
        if (chosen.size() < spares && !onlyListed) {
            Set<String> taken = hosts.stream().map(HostSlot::name).collect(Collectors.toSet());
            members.stream()
                    .filter(m -> SPARE_ROLE.equals(role(m)) && !taken.contains(m.name()) && m.slots() - m.slotsInUse() > 0
                            && m.drain().isEmpty())
                    .sorted(Comparator.comparingDouble(ControlReply.MemberStatus::loadAverage).thenComparing(ControlReply.MemberStatus::name))
                    .limit(spares - chosen.size())
                    .forEach(m -> chosen.add(new HostSlot(m.name(), Math.min(spareSlots, m.slots() - m.slotsInUse()))));
        }
        if (chosen.size() < spares) {
            List<String> found = chosen.stream().map(HostSlot::name).toList();
            if (sparesStrict) {
                throw new NoSpareLeftException("for --spares " + spares, spares, found);
            }
            LOG.warning(() -> "mpirun-ft: only " + found.size() + " spare(s) found " + found + " of the " + spares
                    + " wanted by default; a failure may have to stop the job");
        }
        return new HostPlan(compute, chosen, jobSize, mapping);
    }

    private static List<HostSlot> computeMembers(List<ControlReply.MemberStatus> members) {
        List<HostSlot> hosts = members.stream()
                .filter(m -> COMPUTE_ROLE.equals(role(m)) && m.drain().isEmpty())
                .map(m -> new HostSlot(m.name(), Math.max(1, m.slots())))
                .toList();
        if (hosts.isEmpty()) {
            throw new BadSettingException("--host", "no hosts to run on: give --host or --hostfile, or start ftd on the compute nodes");
        }
        return hosts;
    }

    /** {@code --host} values: {@code a:2,b,c:1}; a name listed again adds slots, as in Open MPI. */
    public static List<HostSlot> parseHostOption(List<String> values) {
        Map<String, Integer> slots = new LinkedHashMap<>();
        for (String value : values) {
            for (String entry : value.split(",")) {
                String e = entry.strip();
                if (e.isEmpty()) {
                    continue;
                }
                int colon = e.lastIndexOf(':');
                String name = colon < 0 ? e : e.substring(0, colon);
                int count = colon < 0 ? 1 : parseSlots("--host", e.substring(colon + 1), e);
                slots.merge(name, count, Integer::sum);
            }
        }
        return slots.entrySet().stream().map(e -> new HostSlot(e.getKey(), e.getValue())).toList();
    }

    /**
     * An Open MPI hostfile: one host per line, {@code name [slots=N] [max_slots=M]}, {@code #}
     * comments. A host without {@code slots=} has 1 slot here (mpirun would count its cores,
     * which only the node knows).
     */
    public static List<HostSlot> readHostfile(Path file) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (IOException e) {
            throw new BadSettingException("--hostfile", "cannot read " + file + ": " + e.getMessage());
        }
        Map<String, Integer> slots = new LinkedHashMap<>();
        for (String raw : lines) {
            int hash = raw.indexOf('#');
            String line = (hash < 0 ? raw : raw.substring(0, hash)).strip();
            if (line.isEmpty()) {
                continue;
            }
            String[] fields = line.split("\\s+");
            int count = 1;
            for (int i = 1; i < fields.length; i++) {
                String field = fields[i].toLowerCase(Locale.ROOT);
                if (field.startsWith("slots=") || field.startsWith("count=") || field.startsWith("cpu=")) {
                    count = parseSlots("--hostfile", field.substring(field.indexOf('=') + 1), line);
                }
            }
            slots.merge(fields[0], count, Integer::sum);
        }
        if (slots.isEmpty()) {
            throw new BadSettingException("--hostfile", file + " names no host");
        }
        return slots.entrySet().stream().map(e -> new HostSlot(e.getKey(), e.getValue())).toList();
    }

    /** {@code --map-by node} (and {@code node:...}) maps round-robin; anything else fills by slot. */
    public static HostPlan.Mapping mappingOf(Optional<String> mapBy) {
        return mapBy.map(v -> v.strip().toLowerCase(Locale.ROOT))
                .filter(v -> v.equals("node") || v.startsWith("node:"))
                .map(v -> HostPlan.Mapping.BY_NODE)
                .orElse(HostPlan.Mapping.BY_SLOT);
    }

    private static int parseSlots(String setting, String value, String entry) {
        try {
            int n = Integer.parseInt(value.strip());
            if (n >= 1) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new BadSettingException(setting, "'" + entry + "' needs a slot count of 1 or more");
    }

    private static String role(ControlReply.MemberStatus member) {
        return member.role() == null ? "" : member.role().toLowerCase(Locale.ROOT);
    }
}
