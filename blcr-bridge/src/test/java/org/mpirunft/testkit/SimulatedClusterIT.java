package org.mpirunft.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** scripts/cluster through the test kit: real namespaces, real signals, real links. */
class SimulatedClusterIT {

    @Test
    void nodesHaveOwnHostnameAddressAndStorage() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(2, 1)) {
            assertEquals("node1", runOn(cluster, "node1", "hostname"));
            assertEquals("spare1", runOn(cluster, "spare1", "hostname"));
            assertTrue(runOn(cluster, "node2", "ip -4 -o addr show dev eth0").contains("10.213.0.2/24"));
            // Each node's own /local; /shared is one directory for all.
            runOn(cluster, "node1", "echo one > /local/mark && echo shared > /shared/mark");
            assertEquals("absent", runOn(cluster, "node2", "cat /local/mark 2>/dev/null || echo absent"));
            assertEquals("shared", runOn(cluster, "node2", "cat /shared/mark"));
            assertEquals("one", runOn(cluster, "node1", "cat /local/mark"));
            // The nodes reach each other by name, over the cluster's own network only.
            assertEquals("0", runOn(cluster, "node1", "ping -c1 -W2 spare1 >/dev/null; echo $?"));
        }
    }

    @Test
    void hangStopsAndHealResumesEverythingOnTheNode() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(1, 0)) {
            Process sleeper = cluster.start("node1", List.of("sleep", "300"));
            long pid = awaitProcess(cluster, "node1", "sleep");
            cluster.hang("node1");
            assertEquals('T', SimulatedCluster.NodeProcess.state(pid), "hung node's process must be stopped");
            cluster.heal("node1");
            assertNotEquals('T', SimulatedCluster.NodeProcess.state(pid), "healed node's process must run again");
            sleeper.destroyForcibly();
        }
    }

    @Test
    void cutTakesTheLinkDownAndHealRestoresIt() throws Exception {
        try (SimulatedCluster cluster = SimulatedCluster.up(2, 0)) {
            assertEquals("0", runOn(cluster, "node1", "ping -c1 -W2 node2 >/dev/null; echo $?"));
            cluster.cut("node2");
            assertEquals("1", runOn(cluster, "node1", "ping -c1 -W1 node2 >/dev/null; echo $?"));
            cluster.heal("node2");
            assertEquals("0", runOn(cluster, "node1", "ping -c3 -i0.2 -W2 node2 >/dev/null; echo $?"));
        }
    }

    @Test
    void killEmptiesTheNodeAndDeletesItsLocalStorage() throws Exception {
        SimulatedCluster cluster = SimulatedCluster.up(2, 0);
        try (cluster) {
            runOn(cluster, "node1", "echo data > /local/checkpoint");
            cluster.start("node1", List.of("sleep", "300"));
            long pid = awaitProcess(cluster, "node1", "sleep");
            cluster.kill("node1");
            assertEquals(List.of(), cluster.processesOn("node1"));
            assertTrue(SimulatedCluster.NodeProcess.stopsWithin(pid, java.time.Duration.ofSeconds(5)), "sleep survived the kill");
            assertFalse(Files.exists(cluster.localStorage("node1")), "node1's local storage must be gone");
            assertTrue(Files.exists(cluster.localStorage("node2")), "node2's local storage must stay");
            IllegalStateException refused = assertThrows(IllegalStateException.class, () -> runOn(cluster, "node1", "true"));
            assertTrue(refused.getMessage().contains("node node1 is killed"), refused.getMessage());
        }
        assertTrue(cluster.isGone(), "down must remove every namespace of the cluster");
        assertFalse(Files.exists(cluster.stateDirectory()), "down must remove the cluster's state");
    }

    @Test
    void badCommandsFailWithOneClearLine() {
        try (SimulatedCluster cluster = SimulatedCluster.up(1, 0)) {
            IllegalStateException noSuchNode = assertThrows(IllegalStateException.class, () -> cluster.kill("node9"));
            assertTrue(noSuchNode.getMessage().contains("no node 'node9'"), noSuchNode.getMessage());
        }
    }

    private static String runOn(SimulatedCluster cluster, String node, String shellCommand) throws Exception {
        Process process = cluster.start(node, List.of("/bin/sh", "-c", shellCommand));
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "command on " + node + " hung: " + shellCommand);
        String text = new String(output, StandardCharsets.UTF_8).strip();
        if (process.exitValue() != 0) {
            throw new IllegalStateException(text);
        }
        return text;
    }

    private static long awaitProcess(SimulatedCluster cluster, String node, String command) throws InterruptedException {
        long[] pid = {-1};
        waitUntil(Duration.ofSeconds(10), () -> cluster.processesOn(node).stream()
                .filter(p -> p.command().equals(command)).findFirst()
                .map(p -> pid[0] = p.pid()).isPresent());
        return pid[0];
    }

    private static void waitUntil(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "condition not met within " + timeout);
            Thread.sleep(20);
        }
    }
}
