package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.RankListener;
import org.mpirunft.bridge.storage.PartWrite;

class GuardedListenerTest {
    @Test
    void aListenerThatThrowsFailsNothingOfTheLibrarys() {
        List<String> heard = new ArrayList<>();
        // Every method records its call and throws, as a program's bug would.
        RankListener faulty = (RankListener) Proxy.newProxyInstance(RankListener.class.getClassLoader(),
                new Class<?>[] {RankListener.class}, (proxy, method, arguments) -> {
                    heard.add(method.getName());
                    throw new IllegalStateException("the program's bug");
                });
        RankListener guarded = GuardedListener.of(faulty);
        guarded.partWriteStarting(PartWrite.Op.WRITE, 1, 2);
        guarded.partWritten(new PartWrite(PartWrite.Op.WRITE, 1, 2, Path.of("/local"), 10, 0, 1, 2));
        guarded.stateTransferred(new RankListener.StateTransfer(1, 2, 1, 10, 5, RankListener.StateTransfer.Source.LOCAL));
        guarded.spareReleased(new RankListener.SpareRelease(4, 1, 1));
        assertEquals(List.of("partWriteStarting", "partWritten", "stateTransferred", "spareReleased"), heard,
                "every call reached the listener");
    }

    @Test
    void noListenerIsCalledAsIs() {
        assertSame(RankListener.NONE, GuardedListener.of(RankListener.NONE));
    }
}
