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
