package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * Where each node's daemon log ended when a test began. On a shared cluster ({@link
 * SharedCluster}) the logs outlive a test, and an assertion about the daemons reads only what
 * they wrote since its test began.
 */
record DaemonLogMark(SimulatedCluster cluster, Map<String, Long> sizes) {
    static DaemonLogMark now(SimulatedCluster cluster) throws IOException {
        Map<String, Long> sizes = new HashMap<>();
        for (String node : nodes(cluster)) {
            Path log = log(cluster, node);
            sizes.put(node, Files.exists(log) ? Files.size(log) : 0L);
        }
        return new DaemonLogMark(cluster, sizes);
    }

    /** The head node and every compute node and spare. */
    static List<String> nodes(SimulatedCluster cluster) {
        return Stream.concat(Stream.of("head"), cluster.nodes().stream()).toList();
    }

    /** What {@code node}'s daemon log got since the mark; empty if it has none. */
    String since(String node) throws IOException {
        Path log = log(cluster, node);
        if (!Files.exists(log)) {
            return "";
        }
        byte[] all = Files.readAllBytes(log);
        int from = (int) Math.min(all.length, sizes.getOrDefault(node, 0L));
        return new String(all, from, all.length - from, StandardCharsets.UTF_8);
    }

    private static Path log(SimulatedCluster cluster, String node) {
        return cluster.stateDirectory().resolve("nodes/" + node + "/ftd.log");
    }
}
