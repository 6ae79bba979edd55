package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.daemon.internal.NodeLocalFiles.HeldFile;

class NodeLocalFilesTest {
    /**
     * A simulated node's mount table as its processes see it (scripts/cluster, trimmed): the
     * node's own /tmp (a directory of the host's disk bound there), /dev/shm stacked three times,
     * the shared storage, and a checkout under /tmp/tx1 shared into every node, bound last.
     */
    private static final List<String> SIMULATED_NODE = List.of(
            "125 55 254:0 /var/cache/mpirun-ft/image / rw,relatime - ext4 /dev/vda rw",
            "161 125 254:0 /var/cache/mpirun-ft/clusters/teo51 /ftc rw,relatime - ext4 /dev/vda rw",
            "168 125 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334416k",
            "169 168 0:22 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683620k",
            "170 169 0:26 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683620k",
            "173 125 0:38 / /proc rw,relatime - proc proc rw",
            "220 125 254:0 /var/cache/mpirun-ft/clusters/teo51/shared /shared rw,relatime - ext4 /dev/vda rw",
            "235 125 254:0 /var/cache/mpirun-ft/clusters/teo51/nodes/node1/local /local rw,relatime - ext4 /dev/vda rw",
            "281 125 254:0 /var/cache/mpirun-ft/clusters/teo51/nodes/node1/tmp /tmp rw,relatime - ext4 /dev/vda rw",
            "285 170 0:42 / /dev/shm rw,relatime - tmpfs shm rw",
            "402 281 254:0 /tmp/tx1 /tmp/tx1 rw,relatime - ext4 /dev/vda rw",
            "414 125 254:0 /root/.m2/repository /root/.m2/repository rw,relatime - ext4 /dev/vda rw");

    private static HeldFile mapped(String path) {
        return new HeldFile(path, -1);
    }

    @Test
    void theSessionDirectoryAndSharedSegmentsOnTheNodesOwnMountsAreKeptWithTheirTopEntry() {
        NodeLocalFiles files = NodeLocalFiles.of(SIMULATED_NODE, "/shared/mpirun-ft");
        assertEquals(Optional.of("/tmp/mpirun-ft-j-1"), files.topOf(new HeldFile("/tmp/mpirun-ft-j-1/prted.5/0/x", 281)));
        assertEquals(Optional.of("/tmp/mpirun-ft-j-1"), files.topOf(mapped("/tmp/mpirun-ft-j-1/prted.5/hwloc.sm")));
        assertEquals(Optional.of("/dev/shm/sm_segment.node1.0"), files.topOf(new HeldFile("/dev/shm/sm_segment.node1.0", 285)));
        assertEquals(Optional.of("/tmp/hsperfdata_root"), files.topOf(mapped("/tmp/hsperfdata_root/4711")));
    }

    /** The defect: a clone under /tmp, shared into the nodes, had its files saved and unpacked over themselves on every node. */
    @Test
    void aCheckoutSharedIntoTheNodesBelowTmpIsNotTheNodesOwn() {
        NodeLocalFiles files = NodeLocalFiles.of(SIMULATED_NODE, "/shared/mpirun-ft");
        assertEquals(Optional.empty(), files.topOf(mapped("/tmp/tx1/mpirun-ext/target/transparent-it/transparent-ring")),
                "the C ring's program, mapped");
        assertEquals(Optional.empty(), files.topOf(new HeldFile("/tmp/tx1/mpirun-ext/target/mpirun-ext-0.1.0-SNAPSHOT.jar", 402)),
                "a jar on the Java ring's class path, open");
        assertEquals(Optional.empty(), files.topOf(new HeldFile("/tmp/a/b", 402)), "the mount fdinfo names decides, not the path");
        assertFalse(files.isOwn("/tmp/tx1"), "the walk below a top entry does not enter the checkout");
        assertFalse(files.isOwn("/tmp/tx1/README.md"));
        assertTrue(files.isOwn("/tmp/tx10/f"), "only what is below the mount point");
        assertEquals(Optional.of("/tmp/tx10"), files.topOf(mapped("/tmp/tx10/f")));
    }

    @Test
    void filesOutsideTheNodeLocalDirectoriesOrDeletedOrOnSharedStorageAreNotKept() {
        NodeLocalFiles files = NodeLocalFiles.of(SIMULATED_NODE, "/tmp/ckpt");
        assertEquals(Optional.empty(), files.topOf(mapped("/usr/lib/x86_64-linux-gnu/libmpi.so.40")), "the node image is every node's");
        assertEquals(Optional.empty(), files.topOf(mapped("/shared/mpirun-ft/alice/job/out")), "shared storage");
        assertEquals(Optional.empty(), files.topOf(mapped("/local/ftd-images/x")), "not a node-local directory of programs");
        assertEquals(Optional.empty(), files.topOf(mapped("/tmp/jna123.so (deleted)")), "CRIU keeps a deleted file itself");
        assertEquals(Optional.empty(), files.topOf(mapped("/tmp/")), "the directory itself is every node's");
        assertEquals(Optional.empty(), files.topOf(mapped("socket:[12345]")));
        assertEquals(Optional.empty(), files.topOf(mapped("/tmp/ckpt/alice/job/epoch-3")), "shared storage configured under /tmp");
        assertFalse(files.isOwn("/tmp/ckpt/x"));
    }

    /** On a cluster the user's tree is on NFS or Lustre; mounted below /tmp, or /tmp itself on it, none of it is the node's. */
    @Test
    void networkFileSystemsAreNeverTheNodesOwn() {
        NodeLocalFiles below = NodeLocalFiles.of(List.of(
                "22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw",
                "31 22 0:27 / /tmp rw shared:5 - tmpfs tmpfs rw",
                "40 31 0:50 /home/a/x /tmp/x rw,relatime shared:7 - nfs4 fs1:/home rw,vers=4.2",
                "41 31 0:51 / /tmp/with\\040space rw - lustre 10.0.0.1@tcp:/scratch rw",
                "42 22 0:28 / /dev/shm rw - tmpfs shm rw"), null);
        assertEquals(Optional.empty(), below.topOf(mapped("/tmp/x/a.out")));
        assertEquals(Optional.empty(), below.topOf(mapped("/tmp/with space/f")), "mount points are unescaped");
        assertEquals(Optional.of("/tmp/prted.9"), below.topOf(mapped("/tmp/prted.9/f")));
        NodeLocalFiles tmpOnNfs = NodeLocalFiles.of(List.of(
                "22 1 8:1 / / rw - ext4 /dev/sda1 rw",
                "31 22 0:50 /scratch/tmp /tmp rw - nfs fs1:/export rw"), null);
        assertEquals(Optional.empty(), tmpOnNfs.topOf(mapped("/tmp/prted.9/f")));
    }

    /** Mounts stacked on one point, and a mount hidden by a later one over a directory above it, resolve as the kernel does. */
    @Test
    void theVisibleMountIsTheLastStackedOneAndAHiddenMountIsNeverReached() {
        NodeLocalFiles files = NodeLocalFiles.of(SIMULATED_NODE, null);
        assertEquals(285, files.mountOf("/dev/shm/seg").orElseThrow().id(), "the node's own shm, stacked on the host's two");
        assertEquals(125, files.mountOf("/etc/hosts").orElseThrow().id());
        assertEquals(402, files.mountOf("/tmp/tx1").orElseThrow().id());
        NodeLocalFiles hidden = NodeLocalFiles.of(List.of(
                "22 1 8:1 / / rw - ext4 /dev/sda1 rw",
                "31 22 0:27 / /tmp rw - tmpfs tmpfs rw",
                "40 31 8:1 /home/a/x /tmp/x rw - ext4 /dev/sda1 rw",
                "50 31 0:60 / /tmp rw - tmpfs tmpfs rw"), null);
        assertEquals(50, hidden.mountOf("/tmp/x/f").orElseThrow().id(), "/tmp/x belongs to the /tmp that was covered");
        assertEquals(Optional.of("/tmp/x"), hidden.topOf(mapped("/tmp/x/f")));
    }
}
