package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.FtdConfig;

class TransparentNodeTest {
    @TempDir
    Path images;

    @Test
    void pruningDeletesTheImagesOfEpochsBeforeTheCommittedOneAndAllOnceTheJobIsOver() throws Exception {
        for (String dir : new String[] {"job/epoch-1", "job/epoch-2", "job/epoch-3", "job/restore-1", "job/restore-3", "job/epoch-x",
                "other/epoch-1"}) {
            Files.createDirectories(images.resolve(dir));
            Files.writeString(images.resolve(dir).resolve("pages-1.img"), "pages");
        }
        TransparentNode node = new TransparentNode("node1", null,
                new FtdConfig.Transparent("job0", "eth0", images, Path.of("/usr/sbin/criu"), Duration.ofSeconds(60)), null);
        node.prune("job", 3);
        assertEquals(Set.of("epoch-3", "restore-3", "epoch-x"), names(images.resolve("job")),
                "the committed epoch and what is not an epoch stay");
        assertTrue(Files.exists(images.resolve("other/epoch-1")), "another job's images stay");
        org.mpirunft.common.FileTrees.delete(images.resolve("job/epoch-x"));
        node.prune("job", Long.MAX_VALUE);
        assertFalse(Files.exists(images.resolve("job")), "the job is over: nothing of it is left");
    }

    private static Set<String> names(Path dir) throws Exception {
        try (var entries = Files.list(dir)) {
            return entries.map(p -> p.getFileName().toString()).collect(java.util.stream.Collectors.toSet());
        }
    }

    /**
     * A restore leaves alone what is here with the dump's content (a survivor's own session
     * files, unreplaceable or not), and puts back what is missing or differs: as GNU tar's
     * {@code -d} reports it, here from a real run (a file changed, one gone, one with another mode and time).
     */
    @Test
    void aRestoreUnpacksOnlyWhatIsMissingOrDiffersFromTheDump() throws Exception {
        Path root = Files.createDirectories(images.resolve("root/tmp/s"));
        Files.writeString(root.resolve("same"), "a\n");
        Files.writeString(root.resolve("changed"), "b\n");
        Files.writeString(root.resolve("gone"), "c\n");
        Files.createSymbolicLink(root.resolve("link"), Path.of("same"));
        Path archive = images.resolve("files.tar");
        Path base = images.resolve("root");
        assertEquals(0, new ProcessBuilder("tar", "-C", base.toString(), "-cf", archive.toString(), "--no-recursion", "tmp/s", "tmp/s/same",
                "tmp/s/changed", "tmp/s/gone", "tmp/s/link").inheritIO().start().waitFor());
        Files.writeString(root.resolve("changed"), "bb\n");
        Files.delete(root.resolve("gone"));
        Files.setLastModifiedTime(root.resolve("same"), java.nio.file.attribute.FileTime.fromMillis(0));
        Files.setPosixFilePermissions(root.resolve("same"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        Process compare = new ProcessBuilder("sh", "-c", "LC_ALL=C tar -C \"$0\" -df \"$1\" 2>&1", base.toString(), archive.toString())
                .start();
        String compared = new String(compare.getInputStream().readAllBytes());
        compare.waitFor();
        Process list = new ProcessBuilder("tar", "-tf", archive.toString()).start();
        List<String> members = List.of(new String(list.getInputStream().readAllBytes()).split("\n"));
        list.waitFor();
        assertEquals(List.of("tmp/s/same", "tmp/s/link"), NodeLocalArchive.unchangedMembers(members, compared),
                "left alone: the same content, whatever its mode and time; the directory is never skipped whole; tar said:\n" + compared);
    }

    /**
     * A restore, run as it runs (tar with the owner's ids, here root's, on the node's own
     * {@code /tmp}): a survivor's file that cannot be replaced (immutable here) but holds the
     * dump's content is left alone, where a plain {@code tar -x} failed the restore; a file with
     * other content gets the dump's back.
     */
    @Test
    void aRestoreLeavesAnUnreplaceableFileWithTheDumpsContentAloneAndPutsBackOneThatDiffers() throws Exception {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "ftd-unpack-");
        Path same = dir.resolve("same");
        try {
            Files.writeString(same, "a\n");
            Files.writeString(dir.resolve("changed"), "b\n");
            Path archive = images.resolve("files.tar");
            String member = dir.toString().substring(1);
            assertEquals(0, new ProcessBuilder("tar", "-C", "/", "-cf", archive.toString(), "--no-recursion", member, member + "/same",
                    member + "/changed").inheritIO().start().waitFor());
            Files.writeString(dir.resolve("changed"), "bb\n");
            org.junit.jupiter.api.Assumptions.assumeTrue(new ProcessBuilder("chattr", "+i", same.toString()).start().waitFor() == 0,
                    "chattr +i works here (root, a file system with the immutable attribute)");
            NodeLocalArchive node = new NodeLocalArchive("node1", new StepCommands("node1", new NodeAgent("node1", Path.of("/usr/bin/prted"),
                    images.resolve("logs"), images.resolve("ranks.sock")), Duration.ofSeconds(60)), null);
            node.unpackNodeLocalFiles(archive, org.mpirunft.common.JobOwner.ROOT, AsOwner.account(org.mpirunft.common.JobOwner.ROOT,
                    "node1"), "job", 3);
            assertEquals("b\n", Files.readString(dir.resolve("changed")), "the dump's content put back");
            assertEquals("a\n", Files.readString(same), "left alone");
        } finally {
            new ProcessBuilder("chattr", "-i", same.toString()).start().waitFor();
            org.mpirunft.common.FileTrees.delete(dir);
        }
    }

    /** Only a zombie whose other threads are still exiting holds a dump back; a running process, or one gone, does not. */
    @Test
    void aRunningOrVanishedProcessIsNotExiting() throws Exception {
        assertFalse(JobTree.exitingWithThreads(ProcessHandle.current().pid()), "this JVM runs");
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        assertFalse(JobTree.exitingWithThreads(gone.pid()), "exited and reaped");
    }

    /**
     * A spare that restored node2's part holds its own job address and node2's: its tree runs on
     * node2's, which the next restore of the part (on another spare) must take, not the spare's.
     */
    @Test
    void aPartIsRestoredWithTheAddressItsTreeRunsOn() {
        List<String> spare = List.of("10.213.1.11/24", "10.213.1.2/24");
        assertEquals("10.213.1.2/24", JobInterface.treeAddress(spare, List.of("127.0.0.1:4000", "10.213.1.2:1025")));
        assertEquals("10.213.1.11/24", JobInterface.treeAddress(spare, List.of("10.213.1.11:1025")), "a tree started on the spare");
        assertEquals("10.213.1.11/24", JobInterface.treeAddress(spare, List.of("127.0.0.1:4000")), "no socket on the job network");
        assertEquals("10.213.1.22/24", JobInterface.treeAddress(List.of("10.213.1.2/24", "10.213.1.22/24"), List.of("10.213.1.22:1025")),
                "an address that begins another is no match");
    }

    @Test
    void loopbackSocketsAreFoundByInodeInProcsTables() {
        Set<Integer> ports = new HashSet<>();
        // 127.0.0.1:42665 listening (inode 111), 10.213.1.2:1025 established (inode 222), ::1:9000 (inode 333).
        ProcSockets.parse("   0: 0100007F:A6A9 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1", Set.of(111L, 222L), ports);
        ProcSockets.parse("   1: 0201D50A:0401 0301D50A:A3F1 01 00000000:00000000 00:00000000 00000000     0        0 222 1", Set.of(111L, 222L), ports);
        ProcSockets.parse("   2: 00000000000000000000000001000000:2328 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 333 1",
                Set.of(333L), ports);
        ProcSockets.parse("   3: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 444 1", Set.of(111L), ports);
        assertEquals(Set.of(42665, 9000), ports, "the job's loopback ports only: not the job network's, not another process's");
        Set<Long> inodes = Set.of(111L, 222L, 333L);
        assertEquals(Optional.of("127.0.0.1:42665"), ProcSockets.endpoint(
                "   0: 0100007F:A6A9 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1", inodes));
        assertEquals(Optional.of("10.213.1.2:1025"), ProcSockets.endpoint(
                "   1: 0201D50A:0401 0301D50A:A3F1 01 00000000:00000000 00:00000000 00000000     0        0 222 1", inodes));
        assertEquals(Optional.of("[0:0:0:0:0:0:0:1]:9000"), ProcSockets.endpoint(
                "   2: 00000000000000000000000001000000:2328 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000 0 0 333 1",
                inodes));
        assertEquals(Optional.empty(), ProcSockets.endpoint(
                "   3: 00000000:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 111 1", inodes), "not the any address");
        assertTrue(ProcSockets.isLoopback("0100007F"));
        assertTrue(ProcSockets.isLoopback("0000000000000000FFFF00000100007F"));
        assertFalse(ProcSockets.isLoopback("0201D50A"));
    }
}
