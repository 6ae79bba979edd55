package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.JobOwner;

/** A restored thread's credentials against its job's owner, as /proc/PID/task/TID/status shows them. */
class RestoredCredentialsTest {
    private static final JobOwner ALICE = new JobOwner(1001, "alice");
    private static final Accounts.Account ALICES = new Accounts.Account(1001, 1001, "alice", "/home/alice", List.of(1001L, 27L));

    private static String status(String uid, String gid, String groups) {
        return "Name:\tprted\nUmask:\t0022\nState:\tS (sleeping)\nUid:\t" + uid + "\nGid:\t" + gid + "\nFDSize:\t64\nGroups:\t" + groups
                + "\nNStgid:\t1\n";
    }

    @Test
    void theOwnersIdsAndGroupsInAnyOrderPass() {
        assertEquals(Optional.empty(), RestoredCredentials.mismatchIn(status("1001\t1001\t1001\t1001", "1001\t1001\t1001\t1001", "27 1001 "),
                ALICE, ALICES));
    }

    @Test
    void anyOtherUidGidOrGroupIsNamed() {
        assertEquals(Optional.of("has uids [1001, 0, 1001, 1001], not 1001"), RestoredCredentials.mismatchIn(
                status("1001\t0\t1001\t1001", "1001\t1001\t1001\t1001", "27 1001"), ALICE, ALICES));
        assertEquals(Optional.of("has gids [1001, 1001, 0, 1001], not 1001"), RestoredCredentials.mismatchIn(
                status("1001\t1001\t1001\t1001", "1001\t1001\t0\t1001", "27 1001"), ALICE, ALICES));
        assertEquals(Optional.of("has groups [0, 27, 1001], not [27, 1001]"), RestoredCredentials.mismatchIn(
                status("1001\t1001\t1001\t1001", "1001\t1001\t1001\t1001", "0 27 1001"), ALICE, ALICES));
    }

    @Test
    void aRootJobIsHeldToRootsIdsOnly() {
        Accounts.Account root = new Accounts.Account(0, 0, "root", "/root", List.of(0L));
        assertEquals(Optional.empty(), RestoredCredentials.mismatchIn(status("0\t0\t0\t0", "0\t0\t0\t0", ""), JobOwner.ROOT, root));
    }
}
