package org.mpirunft.membership;

import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition instead of sleeping for a fixed time. */
public final class Await {
    private Await() {
    }

    public static void waitUntil(Duration timeout, BooleanSupplier condition, Supplier<String> message) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail("not within " + timeout.toMillis() + " ms: " + message.get());
            }
            Thread.sleep(10);
        }
    }
}
