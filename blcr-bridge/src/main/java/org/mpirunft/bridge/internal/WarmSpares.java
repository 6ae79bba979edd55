package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.common.BadValueException;
import org.mpirunft.common.Names;

/**
 * The job's warm spare ranks: processes launched with the job, after its application ranks
 * (world ranks {@code firstRank} on), that initialised MPI and the rank library and then wait,
 * idle, outside the application's world. A recovery gives one a lost rank's number instead of
 * spawning a JVM (Fenix keeps its spare ranks the same way). Immutable; every rank of the job
 * holds the same table, a spawned replacement from its command line ({@link FtConfig#WARM_TABLE}).
 *
 * @param namespace the job's PMIx namespace, which the spares share with the first launch's ranks
 * @param firstRank the world rank of the first spare: the application's size
 * @param nodes     the node of each spare, in world-rank order
 */
record WarmSpares(String namespace, int firstRank, List<String> nodes) {
    static final WarmSpares NONE = new WarmSpares("", 0, List.of());

    WarmSpares {
        nodes = List.copyOf(nodes);
    }

    boolean isEmpty() {
        return nodes.isEmpty();
    }

    /** The PMIx name of the spare with world rank {@code worldRank}. */
    Pmix.ProcessName name(int worldRank) {
        return new Pmix.ProcessName(namespace, worldRank);
    }

    /**
     * An idle spare on the node placed for each lost rank, all or none: a repair either joins
     * spares or spawns every replacement. A spare is idle if it is not in the world already
     * ({@code inWorld}) and not known to be unusable ({@code unusable}, world ranks). Returns
     * lost rank to the spare's world rank, by lost rank; empty if any lost rank has no spare.
     */
    Map<Integer, Integer> idleSparesFor(Map<Integer, String> hosts, Collection<Pmix.ProcessName> inWorld, Set<Integer> unusable) {
        Map<Integer, Integer> chosen = new TreeMap<>();
        for (Map.Entry<Integer, String> lost : new TreeMap<>(hosts).entrySet()) {
            String node = RankRuntime.shortHostName(lost.getValue() == null ? "" : lost.getValue());
            Integer spare = null;
            for (int i = 0; i < nodes.size() && spare == null; i++) {
                int worldRank = firstRank + i;
                if (nodes.get(i).equals(node) && !inWorld.contains(name(worldRank)) && !unusable.contains(worldRank)
                        && !chosen.containsValue(worldRank)) {
                    spare = worldRank;
                }
            }
            if (spare == null) {
                return Map.of();
            }
            chosen.put(lost.getKey(), spare);
        }
        return chosen;
    }

    /** The spares not in the world: the idle ones. */
    List<Integer> idle(Collection<Pmix.ProcessName> inWorld) {
        List<Integer> idle = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (!inWorld.contains(name(firstRank + i))) {
                idle.add(firstRank + i);
            }
        }
        return idle;
    }

    /** {@code NAMESPACE;FIRST;NODE,NODE,...}, for {@link FtConfig#WARM_TABLE}. */
    String encode() {
        return namespace + ";" + firstRank + ";" + String.join(",", nodes);
    }

    static WarmSpares decode(String value) {
        String[] parts = value.split(";", -1);
        if (parts.length != 3 || parts[0].isBlank()) {
            throw new BadValueException(FtConfig.WARM_TABLE, "must be NAMESPACE;FIRST-RANK;NODE,..., got '" + value + "'");
        }
        int first;
        try {
            first = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new BadValueException(FtConfig.WARM_TABLE, "first rank must be a whole number, got '" + parts[1] + "'");
        }
        List<String> nodes = parts[2].isEmpty() ? List.of() : List.of(parts[2].split(","));
        nodes.forEach(node -> Names.requireName(FtConfig.WARM_TABLE, node));
        return new WarmSpares(parts[0], first, nodes);
    }
}
