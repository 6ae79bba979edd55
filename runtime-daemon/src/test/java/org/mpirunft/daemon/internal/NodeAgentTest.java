package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.common.rank.WarmSpareProcess;

class NodeAgentTest {
    /** How long these agents let a rank wait for its mpirun's registration. */
    private static final java.time.Duration SHORT_WAIT = java.time.Duration.ofMillis(200);
    private static final String UNREGISTERED = " (no mpirun of j that started it registered within 200 ms)";

    @TempDir
    Path dir;

    /**
     * The registration race: mpirun forks its own node's rank, and the rank says hello before the
     * launcher registered mpirun. Real processes: a rank of a parent that is registered only 500
     * ms after the hello is admitted, once it is; one whose parent never registers is refused when
     * the wait runs out, with a line that says so.
     */
    @Test
    void aRankThatConnectsBeforeItsMpirunIsRegisteredWaitsForTheRegistration() throws Exception {
        NodeAgent agent = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"), java.time.Duration.ofSeconds(10));
        String user = System.getProperty("user.name");
        Process mpirun = new ProcessBuilder("sh", "-c", "sleep 60 & echo $!; wait").start();
        try {
            long rank = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(mpirun.getInputStream())).readLine().strip());
            long start = System.nanoTime();
            java.util.concurrent.CompletableFuture<Optional<String>> hello = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> agent.rankRefusal(rank, user, "j"), command -> Thread.ofVirtual().start(command));
            Thread.sleep(500);
            assertFalse(hello.isDone(), "the rank waits for its mpirun's registration: " + (hello.isDone() ? hello.join() : ""));
            agent.launcherStarted("j", mpirun.pid());
            assertEquals(Optional.empty(), hello.get(5, java.util.concurrent.TimeUnit.SECONDS), "admitted once mpirun is registered");
            long millis = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(millis >= 500 && millis < 5_000, "answered on the registration, not at the bound: " + millis + " ms");

            NodeAgent never = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"), java.time.Duration.ofMillis(300));
            long refusedAt = System.nanoTime();
            assertEquals(Optional.of("pid " + rank + " belongs to job '', not 'j' (no mpirun of j that started it registered within 300 ms)"),
                    never.rankRefusal(rank, user, "j"));
            assertTrue(System.nanoTime() - refusedAt >= java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(300), "refused at the bound");
            assertEquals(Optional.of("pid " + rank + " is no job process of n1"), never.rankRefusal(Long.MAX_VALUE - 1, user, "j")
                    .map(why -> why.replace(Long.toString(Long.MAX_VALUE - 1), Long.toString(rank))), "no such process: refused at once");
        } finally {
            mpirun.descendants().forEach(ProcessHandle::destroyForcibly);
            mpirun.destroyForcibly().waitFor();
        }
    }

    /** Real processes: this JVM's children are the agent's job processes. */
    @Test
    void anIdleWarmSpareIsNoSlotInUseUntilItIsAdmittedToTheRankChannel() throws Exception {
        NodeAgent agent = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"));
        int before = agent.slotsInUse();
        ProcessBuilder rankBuilder = new ProcessBuilder("sleep", "60");
        rankBuilder.environment().put(NodeAgent.JOB_VARIABLE, "j");
        ProcessBuilder spareBuilder = new ProcessBuilder("sleep", "60");
        spareBuilder.environment().put(NodeAgent.JOB_VARIABLE, "j");
        spareBuilder.environment().put(WarmSpareProcess.VARIABLE, "1");
        Process rank = rankBuilder.start();
        Process spare = spareBuilder.start();
        try {
            assertEquals(before + 1, agent.slotsInUse(), "the rank counts, the idle warm spare does not");
            assertEquals(Optional.empty(), agent.rankRefusal(spare.pid(), System.getProperty("user.name"), "j"));
            assertEquals(before + 2, agent.slotsInUse(), "a warm spare that took a rank speaks on the rank channel, and counts");
        } finally {
            rank.destroyForcibly().waitFor();
            spare.destroyForcibly().waitFor();
        }
        assertEquals(before, agent.slotsInUse());
    }

    /** mpirun run by a launcher on this node starts its own node's ranks itself: registered, they are the job's. */
    @Test
    void aRankThatMpirunStartedItselfIsAdmittedOnceTheLauncherRegisteredMpirun() throws Exception {
        NodeAgent agent = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"), SHORT_WAIT);
        String user = System.getProperty("user.name");
        // "mpirun" (untagged: not started by this daemon for a job) and the rank it started.
        Process mpirun = new ProcessBuilder("sh", "-c", "sleep 60 & echo $!; wait").start();
        try {
            long rank = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(mpirun.getInputStream())).readLine().strip());
            assertEquals(Optional.of("pid " + rank + " belongs to job '', not 'j'" + UNREGISTERED), agent.rankRefusal(rank, user, "j"),
                    "unregistered, mpirun's rank is nobody's");
            agent.launcherStarted("j", mpirun.pid());
            assertEquals(Optional.empty(), agent.rankRefusal(rank, user, "j"));
            assertEquals(Optional.of("pid " + rank + " was started by job 'j''s mpirun, not 'k''s"), agent.rankRefusal(rank, user, "k"));
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> agent.launcherStarted("j", Long.MAX_VALUE));
        } finally {
            mpirun.descendants().forEach(ProcessHandle::destroyForcibly);
            mpirun.destroyForcibly().waitFor();
        }
    }
    /**
     * A crash: the daemon writes nothing as it dies, but the handover it kept current as the job's
     * mpirun was registered lets the next daemon adopt it; once that mpirun is gone, the file is.
     */
    @Test
    void theHandoverIsKeptCurrentSoThatADaemonThatCrashedLeavesItsJobProcessesToTheNext() throws Exception {
        String user = System.getProperty("user.name");
        Path handover = dir.resolve("state/handover.json");
        NodeAgent crashing = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"), SHORT_WAIT);
        crashing.keepHandoverIn(handover);
        assertFalse(java.nio.file.Files.exists(handover), "nothing to hand over yet");
        Process mpirun = new ProcessBuilder("sh", "-c", "sleep 60 & echo $!; wait").start();
        try {
            long rank = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(mpirun.getInputStream())).readLine().strip());
            crashing.launcherStarted("j", mpirun.pid());
            assertTrue(java.nio.file.Files.exists(handover) && java.nio.file.Files.readString(handover)
                    .contains("\"launchers\":[{\"pid\":" + mpirun.pid()), "written as the job's mpirun was registered, not only at a clean stop");

            NodeAgent next = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"), SHORT_WAIT);
            next.adopt(handover);
            next.keepHandoverIn(handover);
            assertEquals(Optional.empty(), next.rankRefusal(rank, user, "j"), "the crashed daemon's mpirun's rank is the job's again");
            assertTrue(java.nio.file.Files.exists(handover), "the next daemon keeps it current in turn");

            mpirun.descendants().forEach(ProcessHandle::destroyForcibly);
            mpirun.destroyForcibly().waitFor();
            long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
            while (java.nio.file.Files.exists(handover) && System.nanoTime() < deadline) {
                Thread.sleep(20);
                next.refreshHandover();
            }
            assertFalse(java.nio.file.Files.exists(handover), () -> "nothing left to hand over: no file, but " + readQuietly(handover));
        } finally {
            mpirun.descendants().forEach(ProcessHandle::destroyForcibly);
            mpirun.destroyForcibly().waitFor();
        }
    }

    private static String readQuietly(Path file) {
        try {
            return java.nio.file.Files.readString(file);
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /** A restart: the next daemon adopts what the one before handed over, and only processes that still run as they did. */
    @Test
    void theNextDaemonAdoptsTheRegisteredMpirunItsPredecessorHandedOver() throws Exception {
        String user = System.getProperty("user.name");
        Path handover = dir.resolve("state/handover.json");
        Process mpirun = new ProcessBuilder("sh", "-c", "sleep 60 & echo $!; wait").start();
        try {
            long rank = Long.parseLong(new java.io.BufferedReader(new java.io.InputStreamReader(mpirun.getInputStream())).readLine().strip());
            NodeAgent before = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"));
            before.launcherStarted("j", mpirun.pid());
            before.handOver(handover);
            assertTrue(java.nio.file.Files.exists(handover));
            String written = java.nio.file.Files.readString(handover);

            NodeAgent after = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"), SHORT_WAIT);
            assertEquals(Optional.of("pid " + rank + " belongs to job '', not 'j'" + UNREGISTERED), after.rankRefusal(rank, user, "j"),
                    "not yet adopted");
            after.adopt(handover);
            assertEquals(Optional.empty(), after.rankRefusal(rank, user, "j"), "the adopted mpirun's rank is the job's again");
            assertFalse(java.nio.file.Files.exists(handover), "a handover is read once");

            // The same PID with another start time is another process: not adopted.
            long start = mpirun.info().startInstant().orElseThrow().toEpochMilli();
            java.nio.file.Files.writeString(handover, written.replace("\"startMillis\":" + start, "\"startMillis\":" + (start - 1000)));
            NodeAgent reused = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"), SHORT_WAIT);
            reused.adopt(handover);
            assertEquals(Optional.of("pid " + rank + " belongs to job '', not 'j'" + UNREGISTERED), reused.rankRefusal(rank, user, "j"));

            java.nio.file.Files.writeString(handover, "{not json");
            NodeAgent malformed = new NodeAgent("n1", Path.of("/opt/ompi/bin/prted"), dir, dir.resolve("rank.sock"));
            malformed.adopt(handover);
            assertFalse(java.nio.file.Files.exists(handover), "a malformed handover is logged and dropped");
        } finally {
            mpirun.descendants().forEach(ProcessHandle::destroyForcibly);
            mpirun.destroyForcibly().waitFor();
        }
    }

    /**
     * A user's job: its node daemon runs with the owner's uid, gid and groups, no capability and
     * no_new_privs, in an environment rebuilt for the user (none of root's, none of the daemon's
     * own). The fake prted prints what the kernel says of it into the log the agent keeps.
     */
    @Test
    void aUsersNodeDaemonRunsAsTheUserWithNoCapabilityAndASanitizedEnvironment() throws Exception {
        Accounts.Account nobody = Accounts.byName("nobody").orElseThrow();
        java.nio.file.Files.setPosixFilePermissions(dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path prted = dir.resolve("prted");
        java.nio.file.Files.writeString(prted, """
                #!/bin/sh
                grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapBnd|CapAmb|NoNewPrivs):' /proc/self/status
                echo "HOME=$HOME USER=$USER JOB=$MPIRUN_FT_JOB SECRET=${FTD_SECRET:-none} ROOTOK=${OMPI_ALLOW_RUN_AS_ROOT:-none}"
                echo "TMPDIR=$TMPDIR $(stat -c '%u %a' "$TMPDIR")"
                """);
        java.nio.file.Files.setPosixFilePermissions(prted, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        Path logs = dir.resolve("logs");
        NodeAgent agent = new NodeAgent("n1", prted, logs, dir.resolve("rank.sock"));
        agent.launch("ujob", java.util.List.of("prted", "--daemonize"), true, new org.mpirunft.common.JobOwner(nobody.uid(), nobody.name()));
        String status;
        try (var files = java.nio.file.Files.list(logs)) {
            status = java.nio.file.Files.readString(files.findFirst().orElseThrow());
        }
        String uid = String.valueOf(nobody.uid());
        String gid = String.valueOf(nobody.gid());
        assertTrue(status.matches("(?s).*Uid:\\s+" + uid + "\\s+" + uid + "\\s+" + uid + "\\s+" + uid + "\\n.*"), status);
        assertTrue(status.matches("(?s).*Gid:\\s+" + gid + "\\s+" + gid + "\\s+" + gid + "\\s+" + gid + "\\n.*"), status);
        for (String set : java.util.List.of("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")) {
            assertTrue(status.contains(set + ":\t0000000000000000"), set + " must be empty: " + status);
        }
        assertTrue(status.contains("NoNewPrivs:\t1"), status);
        assertTrue(status.contains("HOME=" + nobody.home() + " USER=nobody JOB=ujob SECRET=none ROOTOK=none"), status);
        // Its own temporary directory (PRRTE's session directory goes there): made for it, the
        // user's alone, its name not one another user could make first; gone once the job ended here.
        java.util.regex.Matcher tmp = java.util.regex.Pattern.compile("TMPDIR=(\\S+) (\\d+) (\\d+)").matcher(status);
        assertTrue(tmp.find(), status);
        assertTrue(tmp.group(1).matches(java.util.regex.Pattern.quote(System.getProperty("java.io.tmpdir")) + "/mpirun-ft-ujob-\\d+"), status);
        assertEquals(uid + " 700", tmp.group(2) + " " + tmp.group(3), status);
        Path temp = Path.of(tmp.group(1));
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        while (java.nio.file.Files.exists(temp) && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertFalse(java.nio.file.Files.exists(temp), temp + " is removed once the job has no process left on the node");
    }
}
