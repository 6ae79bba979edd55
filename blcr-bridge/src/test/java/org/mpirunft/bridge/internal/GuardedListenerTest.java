package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

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
        RankListener faulty = new RankListener() {
            @Override
            public void partWriteStarting(PartWrite.Op op, int rank, long epoch) {
                heard.add("starting");
                throw new IllegalStateException("the program's bug");
            }

            @Override
            public void partWritten(PartWrite write) {
                heard.add("written");
                throw new IllegalStateException("the program's bug");
            }

            @Override
            public void stateTransferred(StateTransfer transfer) {
                heard.add("transferred");
                throw new IllegalStateException("the program's bug");
            }

            @Override
            public void spareReleased(SpareRelease release) {
                heard.add("released");
                throw new IllegalStateException("the program's bug");
            }
        };
        RankListener guarded = GuardedListener.of(faulty);
        guarded.partWriteStarting(PartWrite.Op.WRITE, 1, 2);
        guarded.partWritten(new PartWrite(PartWrite.Op.WRITE, 1, 2, Path.of("/local"), 10, 0, 1, 2));
        guarded.stateTransferred(new RankListener.StateTransfer(1, 2, 1, 10, 5, RankListener.StateTransfer.Source.LOCAL));
        guarded.spareReleased(new RankListener.SpareRelease(4, 1, 1));
        assertEquals(List.of("starting", "written", "transferred", "released"), heard, "every call reached the listener");
    }

    @Test
    void noListenerIsCalledAsIs() {
        assertSame(RankListener.NONE, GuardedListener.of(RankListener.NONE));
    }
}
