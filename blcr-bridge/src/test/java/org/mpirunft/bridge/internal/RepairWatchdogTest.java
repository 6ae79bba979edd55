package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** What the repair's watchdog says of where the repair was stuck when it gave up. */
class RepairWatchdogTest {
    private static StackTraceElement frame(String className, String method) {
        return new StackTraceElement(className, method, null, -2);
    }

    @Test
    void namesTheMpiCallAndTheRuntimesMethodsThatLedThere() {
        StackTraceElement[] stack = {
                frame("mpi.Intercomm", "connect"),
                frame("org.mpirunft.bridge.internal.WorldRepair", "callWarmSpare"),
                frame("org.mpirunft.bridge.internal.WorldRepair", "callWarmSpare"),
                frame("org.mpirunft.bridge.internal.WorldRepair", "asSurvivor"),
                frame("org.mpirunft.bridge.internal.RankRuntime", "recoverOnce"),
                frame("org.mpirunft.bridge.internal.RankRuntime", "recover")};
        assertEquals("mpi.Intercomm.connect in WorldRepair.callWarmSpare < WorldRepair.asSurvivor < RankRuntime.recoverOnce",
                RankRuntime.stuckIn(stack));
    }

    @Test
    void outsideTheBindingsTheInnermostFrameStandsForTheCall() {
        StackTraceElement[] stack = {
                frame("com.sun.jna.Native", "invokeInt"),
                frame("org.mpirunft.bridge.ulfm.Ulfm", "shrink")};
        assertEquals("com.sun.jna.Native.invokeInt in Ulfm.shrink", RankRuntime.stuckIn(stack));
        assertEquals("an unknown call", RankRuntime.stuckIn(new StackTraceElement[0]));
    }
}
