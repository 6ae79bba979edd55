package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.mpirunft.bridge.ulfm.Pmix;
import org.mpirunft.common.BadValueException;

class WarmSparesTest {
    /** 4 application ranks, then spares on spare1 (world rank 4), spare2 (5) and spare1 again (6). */
    private final WarmSpares warm = new WarmSpares("prterun-head-1@1", 4, List.of("spare1", "spare2", "spare1"));

    @Test
    void eachLostRankGetsAnIdleSpareOnTheNodePlacedForIt() {
        assertEquals(Map.of(2, 5), warm.idleSparesFor(Map.of(2, "spare2"), List.of(), Set.of()));
        assertEquals(Map.of(2, 4, 3, 6), warm.idleSparesFor(Map.of(2, "spare1", 3, "spare1.cluster"), List.of(), Set.of()),
                "two ranks on one spare node with two spare slots; the node's domain does not matter");
    }

    @Test
    void aSpareInTheWorldOrOneThatFailedIsNotCalledAgain() {
        List<Pmix.ProcessName> world = List.of(new Pmix.ProcessName("prterun-head-1@1", 4));
        assertEquals(Map.of(2, 6), warm.idleSparesFor(Map.of(2, "spare1"), world, Set.of()), "world rank 4 took a rank before");
        assertEquals(Map.of(), warm.idleSparesFor(Map.of(2, "spare1"), world, Set.of(6)), "and 6 failed a repair: none left there");
        assertEquals(List.of(5, 6), warm.idle(world), "the idle ones");
    }

    @Test
    void allOrNone() {
        assertEquals(Map.of(), warm.idleSparesFor(Map.of(2, "spare2", 3, "node9"), List.of(), Set.of()),
                "no spare on node9: both ranks are spawned");
        assertEquals(Map.of(), warm.idleSparesFor(Map.of(2, "spare2", 3, "spare2"), List.of(), Set.of()),
                "spare2 has one warm spare for two ranks");
    }

    @Test
    void theTableSurvivesItsTextForm() {
        assertEquals(warm, WarmSpares.decode(warm.encode()));
    }

    @Test
    void aCallNamesEachCalledSparesNodeSoItsDaemonCanHandItOn() {
        var call = SpareRendezvous.call("job1", "2@node3#1", List.of(6, 5), warm, 0);
        assertEquals(List.of(6, 5), call.group(), "leader first, in the order of the ranks they take");
        assertEquals(Map.of(5, "spare2", 6, "spare1"), call.nodes());
        assertTrue(call.tag() > 0 && call.tag() < SpareRendezvous.ANSWER_TAG, "the intercommunicator's tag is not the handshake's: "
                + call.tag());
    }

    @Test
    void aBadTableIsOneClearError() {
        BadValueException e = assertThrows(BadValueException.class, () -> WarmSpares.decode("ns;x;spare1"));
        assertTrue(e.getMessage().contains("mpirunft.warm.table"), e.getMessage());
        assertThrows(BadValueException.class, () -> WarmSpares.decode("ns;4;spare 1"));
    }
}
