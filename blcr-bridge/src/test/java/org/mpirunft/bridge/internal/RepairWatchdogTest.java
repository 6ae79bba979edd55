package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
                frame("org.mpirunft.bridge.internal.RankRecovery", "recoverOnce"),
                frame("org.mpirunft.bridge.internal.RankRecovery", "recover")};
        assertEquals("mpi.Intercomm.connect in WorldRepair.callWarmSpare < WorldRepair.asSurvivor < RankRecovery.recoverOnce",
                RankRecovery.stuckIn(stack));
    }

    @Test
    void outsideTheBindingsTheInnermostFrameStandsForTheCall() {
        StackTraceElement[] stack = {
                frame("com.sun.jna.Native", "invokeInt"),
                frame("org.mpirunft.bridge.ulfm.Ulfm", "shrink")};
        assertEquals("com.sun.jna.Native.invokeInt in Ulfm.shrink", RankRecovery.stuckIn(stack));
        assertEquals("an unknown call", RankRecovery.stuckIn(new StackTraceElement[0]));
    }

    @Test
    void saysWhereItIsHalfwayAndAnInterruptBeforeTheBoundSparesTheProcess() throws InterruptedException {
        CountDownLatch halfway = new CountDownLatch(1);
        AtomicInteger last = new AtomicInteger();
        long start = System.nanoTime();
        // 4 s: the test interrupts at once after the halfway line, 2 s before the halt would come.
        Thread watchdog = RankRuntime.haltUnlessInterrupted("test-watchdog", Duration.ofSeconds(4), 1, halfway::countDown,
                last::incrementAndGet);
        assertTrue(halfway.await(10, TimeUnit.SECONDS), "no halfway line");
        watchdog.interrupt();
        watchdog.join();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms >= 2000, "the halfway line came after " + ms + " ms, before half the bound");
        assertEquals(0, last.get(), "interrupted before the bound: no last words, no halt");
    }
}
