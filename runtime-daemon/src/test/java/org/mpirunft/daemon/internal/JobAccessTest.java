package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.JobOwner;
import org.mpirunft.daemon.protocol.ControlRequest;

class JobAccessTest {
    private static final int V = ControlRequest.VERSION;
    private static final JobOwner ALICE = new JobOwner(1001, "alice");
    private static final JobOwner BOB = new JobOwner(1002, "bob");
    private static final Caller AS_ALICE = new Caller(ALICE, false);
    private static final Caller AS_BOB = new Caller(BOB, false);
    private static final Caller AS_ROOT = new Caller(JobOwner.ROOT, true);
    private static final Caller AS_OPERATOR = new Caller(new JobOwner(1003, "carol"), true);

    private final JobAccess access = new JobAccess(job -> Optional.ofNullable(Map.of("ajob", ALICE).get(job)));

    private static final List<ControlRequest> ON_ALICES_JOB = List.of(
            new ControlRequest.Subscribe(V, "ajob"),
            new ControlRequest.CheckpointNow(V, "ajob"),
            new ControlRequest.Migrate(V, "ajob", "node2", "test"),
            new ControlRequest.KillJob(V, "ajob", List.of()),
            new ControlRequest.JobFinished(V, "ajob", 0),
            new ControlRequest.FailureReported(V, "ajob", "mpirun", Map.of(1, "node2"), List.of(), "lost"),
            new ControlRequest.RestartNeeded(V, "ajob", "mpirun", "ended"),
            new ControlRequest.JobRelaunched(V, "ajob", 2, List.of("node1")),
            new ControlRequest.Launch(V, "node2", "ajob", List.of("prted"), ""));

    @Test
    void aJobsOwnerAndTheOperatorsMayActOnItAndNobodyElse() {
        for (ControlRequest request : ON_ALICES_JOB) {
            assertEquals(Optional.empty(), access.refusal(request, AS_ALICE), request.toString());
            assertEquals(Optional.empty(), access.refusal(request, AS_ROOT), request.toString());
            assertEquals(Optional.empty(), access.refusal(request, AS_OPERATOR), request.toString());
            Optional<String> refusal = access.refusal(request, AS_BOB);
            assertTrue(refusal.isPresent(), request.toString());
            assertTrue(refusal.get().matches("bob may not [a-z ]+ job ajob: it is alice's"), refusal.get());
        }
    }

    @Test
    void theNodesAndAKillOfEveryJobAreTheOperators() {
        for (ControlRequest request : List.of(new ControlRequest.Drain(V, "node1", "x"), new ControlRequest.Resume(V, "node1"),
                new ControlRequest.RestartDaemons(V, List.of("node1")), new ControlRequest.KillJob(V, "", List.of()))) {
            assertEquals(Optional.empty(), access.refusal(request, AS_OPERATOR), request.toString());
            assertTrue(access.refusal(request, AS_ALICE).orElseThrow().startsWith("only an operator may "), request.toString());
        }
    }

    @Test
    void aJobNameIsItsFirstOwnersAndAKillOfAnUnregisteredJobIsTheOperators() {
        ControlRequest register = new ControlRequest.RegisterJob(V, "ajob", List.of("node1"), List.of(), "pause", "", 1);
        assertEquals(Optional.empty(), access.refusal(register, AS_ALICE), "alice relaunches her own job");
        assertEquals("job name ajob is taken by alice's job; choose another (--job)", access.refusal(register, AS_BOB).orElseThrow());
        assertTrue(access.refusal(register, AS_ROOT).isPresent(), "not even root registers a job under another user's job name");
        assertEquals(Optional.empty(), access.refusal(new ControlRequest.RegisterJob(V, "bjob", List.of("node1"), List.of(), "pause",
                "", 1), AS_BOB));
        assertTrue(access.refusal(new ControlRequest.KillJob(V, "nobodys", List.of()), AS_BOB).isPresent());
        assertEquals(Optional.empty(), access.refusal(new ControlRequest.KillJob(V, "nobodys", List.of()), AS_OPERATOR));
    }

    @Test
    void everyUserMayRunATransparentJobOfTheirOwn() {
        ControlRequest transparent = new ControlRequest.RegisterJob(V, "tjob", List.of("node1"), List.of(), "transparent", "", 1);
        assertEquals(Optional.empty(), access.refusal(transparent, AS_ALICE), "its images are root's, not alice's to write");
        assertEquals(Optional.empty(), access.refusal(transparent, AS_OPERATOR));
        assertEquals(Optional.empty(), access.refusal(transparent, AS_ROOT));
        ControlRequest taken = new ControlRequest.RegisterJob(V, "ajob", List.of("node1"), List.of(), "transparent", "", 1);
        assertEquals("job name ajob is taken by alice's job; choose another (--job)", access.refusal(taken, AS_BOB).orElseThrow());
    }

    @Test
    void processesRunAsTheJobsOwnerWhoeverAsks() {
        assertEquals(ALICE, access.launchOwner("ajob", AS_ROOT));
        assertEquals(BOB, access.launchOwner("", AS_BOB), "a plain mpirun's node daemons run as the user who ran it");
        assertEquals(BOB, access.launchOwner("unregistered", AS_BOB));
    }

    @Test
    void othersJobsAreListedWithoutDetails() {
        assertTrue(access.maySee("ajob", AS_ALICE));
        assertTrue(access.maySee("ajob", AS_OPERATOR));
        assertFalse(access.maySee("ajob", AS_BOB));
        assertFalse(access.maySee("", AS_BOB), "processes of no registered job are the operators' to see");
    }

    @Test
    void aCallerRegistersOnlyItsOwnProcessAsMpirun() {
        long self = ProcessHandle.current().pid();
        // This JVM runs as root: not alice's process.
        assertEquals("pid " + self + " is not alice's process",
                access.refusal(new ControlRequest.LauncherStarted(V, "ajob", self), AS_ALICE).orElseThrow());
        assertEquals(Optional.empty(), access.refusal(new ControlRequest.LauncherStarted(V, "ajob", self), AS_ROOT));
    }
}
