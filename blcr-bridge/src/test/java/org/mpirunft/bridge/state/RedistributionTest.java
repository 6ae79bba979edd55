package org.mpirunft.bridge.state;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RedistributionTest {
    private static final long LENGTH = 1_003;

    /** The state of rank {@code rank} of {@code ranks}: a block of global element i = i * 0.5, a replicated table, a scalar. */
    private static RankState written(int rank, int ranks) {
        RankState state = new RankState();
        state.placeAt(rank, ranks);
        Blocks<double[]> field = state.blocks("field", LENGTH, double[].class);
        Blocks<long[]> ids = state.blocks("ids", 37, long[].class);
        state.registerReplicated("table", new int[] {7, 8, 9});
        double[] f = field.array();
        for (int i = 0; i < f.length; i++) {
            f[i] = (field.start() + i) * 0.5;
        }
        long[] id = ids.array();
        for (int i = 0; i < id.length; i++) {
            id[i] = ids.start() + i;
        }
        state.scalars().setLong("step", 41);
        return state;
    }

    private static Map<Integer, Snapshot> epoch(int ranks) {
        Map<Integer, Snapshot> parts = new HashMap<>();
        for (int r = 0; r < ranks; r++) {
            parts.put(r, Snapshot.capture(written(r, ranks), 5, r, 40));
        }
        return parts;
    }

    @Test
    void everyRankCountRebuildsTheSameGlobalArrays() {
        for (int fromRanks : new int[] {1, 3, 4, 7}) {
            Map<Integer, Snapshot> parts = epoch(fromRanks);
            for (int ranks : new int[] {1, 2, 3, 4, 8}) {
                List<Double> field = new ArrayList<>();
                List<Long> ids = new ArrayList<>();
                for (int rank = 0; rank < ranks; rank++) {
                    RankState state = new RankState();
                    state.placeAt(rank, ranks);
                    Blocks<double[]> f = state.blocks("field", LENGTH, double[].class);
                    Blocks<long[]> id = state.blocks("ids", 37, long[].class);
                    int[] table = new int[3];
                    state.registerReplicated("table", table);
                    Map<Integer, Snapshot> read = new HashMap<>();
                    Redistribution.sources(state, fromRanks, rank, ranks).forEach(r -> read.put(r, parts.get(r)));
                    Snapshot rebuilt = Redistribution.assemble(state, fromRanks, rank, ranks, read);
                    assertEquals(rank, rebuilt.rank());
                    assertEquals(40, rebuilt.iteration());
                    rebuilt.restoreInto(state);
                    for (double v : f.array()) {
                        field.add(v);
                    }
                    for (long v : id.array()) {
                        ids.add(v);
                    }
                    assertArrayEquals(new int[] {7, 8, 9}, table, "replicated, in place");
                    assertEquals(41, state.scalars().getLong("step", -1));
                }
                assertEquals(LENGTH, field.size(), fromRanks + " -> " + ranks);
                for (int i = 0; i < LENGTH; i++) {
                    assertEquals(i * 0.5, field.get(i), "element " + i + ", " + fromRanks + " -> " + ranks);
                }
                for (int i = 0; i < 37; i++) {
                    assertEquals(i, ids.get(i), "id " + i + ", " + fromRanks + " -> " + ranks);
                }
            }
        }
    }

    @Test
    void theProcessGridIsAsSquareAsTheRankCountAllows() {
        assertEquals(List.of(1, 1), dims(1));
        assertEquals(List.of(2, 1), dims(2));
        assertEquals(List.of(3, 1), dims(3));
        assertEquals(List.of(2, 2), dims(4));
        assertEquals(List.of(3, 2), dims(6));
        assertEquals(List.of(4, 2), dims(8));
        assertEquals(List.of(4, 3), dims(12));
        assertEquals(List.of(7, 1), dims(7));
    }

    private static List<Integer> dims(int ranks) {
        int[] d = Grid.dimensions(ranks);
        return List.of(d[0], d[1]);
    }

    /** Rank {@code rank} of {@code ranks}'s block of a 37 x 23 matrix whose element (r, c) is r * 1000 + c. */
    private static RankState gridWritten(int rank, int ranks) {
        RankState state = new RankState();
        state.placeAt(rank, ranks);
        Grid<long[]> m = state.grid("m", 37, 23, long[].class);
        long[] a = m.array();
        for (int i = 0; i < m.rows(); i++) {
            for (int j = 0; j < m.columns(); j++) {
                a[i * m.columns() + j] = (m.rowStart() + i) * 1000 + m.columnStart() + j;
            }
        }
        return state;
    }

    @Test
    void everyRankCountRebuildsTheSameMatrixOnItsGrid() {
        for (int fromRanks : new int[] {1, 3, 4, 6}) {
            Map<Integer, Snapshot> parts = new HashMap<>();
            for (int r = 0; r < fromRanks; r++) {
                parts.put(r, Snapshot.capture(gridWritten(r, fromRanks), 2, r, 10));
            }
            for (int ranks : new int[] {1, 2, 4, 5, 8}) {
                long cells = 0;
                for (int rank = 0; rank < ranks; rank++) {
                    RankState state = new RankState();
                    state.placeAt(rank, ranks);
                    Grid<long[]> m = state.grid("m", 37, 23, long[].class);
                    Map<Integer, Snapshot> read = new HashMap<>();
                    Redistribution.sources(state, fromRanks, rank, ranks).forEach(r -> read.put(r, parts.get(r)));
                    Redistribution.assemble(state, fromRanks, rank, ranks, read).restoreInto(state);
                    long[] a = m.array();
                    assertEquals((long) m.rows() * m.columns(), a.length);
                    for (int i = 0; i < m.rows(); i++) {
                        for (int j = 0; j < m.columns(); j++) {
                            assertEquals((m.rowStart() + i) * 1000 + m.columnStart() + j, a[i * m.columns() + j],
                                    "(" + i + ", " + j + ") of rank " + rank + ", " + fromRanks + " -> " + ranks);
                        }
                    }
                    cells += a.length;
                }
                assertEquals(37 * 23, cells, fromRanks + " -> " + ranks + ": every cell once");
            }
        }
    }

    @Test
    void aGridOfAnotherShapeIsRefused() {
        Map<Integer, Snapshot> parts = new HashMap<>();
        for (int r = 0; r < 4; r++) {
            parts.put(r, Snapshot.capture(gridWritten(r, 4), 2, r, 10));
        }
        RankState state = new RankState();
        state.placeAt(0, 2);
        state.grid("m", 37, 24, long[].class);
        StateMismatchException e = assertThrows(StateMismatchException.class, () -> Redistribution.assemble(state, 4, 0, 2, parts));
        assertTrue(e.getMessage().contains("columns 23, the rank registered 24"), e.getMessage());
    }

    @Test
    void aRankReadsOnlyThePartsThatOverlapItsBlock() {
        RankState state = new RankState();
        state.placeAt(1, 2);
        state.blocks("field", 8, double[].class);
        // Over 4 ranks, elements 4-7 are ranks 2 and 3's; rank 0 is read for the scalars.
        assertEquals(List.of(0, 2, 3), List.copyOf(Redistribution.sources(state, 4, 1, 2)));
    }

    @Test
    void aBlockOfTheSameLayoutIsRestoredInPlace() {
        RankState state = written(2, 4);
        Blocks<double[]> field = state.distributedOf("field") instanceof Blocks<?> b ? castDoubles(b) : null;
        double[] before = field.array();
        Snapshot.capture(state, 1, 2, 0).restoreInto(state);
        assertSame(before, field.array());
    }

    @Test
    void perRankStateRefusesAResizeUnlessTheProgramHandlesIt() {
        Map<Integer, Snapshot> parts = new HashMap<>();
        for (int r = 0; r < 4; r++) {
            RankState state = written(r, 4);
            state.register("own", new double[] {r});
            parts.put(r, Snapshot.capture(state, 5, r, 40));
        }
        RankState refusing = newRankWithOwn(new double[1]);
        StateMismatchException refused = assertThrows(StateMismatchException.class,
                () -> Redistribution.assemble(refusing, 4, 0, 2, parts));
        assertTrue(refused.getMessage().contains("'own' is per rank"), refused.getMessage());

        double[] own = {-1};
        RankState handling = newRankWithOwn(own);
        List<RankState.Resize> seen = new ArrayList<>();
        handling.onResize(seen::add);
        Redistribution.assemble(handling, 4, 0, 2, parts).restoreInto(handling);
        assertEquals(-1, own[0], "left as the program set it up, for its listener");
    }

    @Test
    void aBlockOfTheWrongLengthIsRefused() {
        Map<Integer, Snapshot> parts = epoch(4);
        RankState state = new RankState();
        state.placeAt(0, 2);
        state.blocks("field", LENGTH + 1, double[].class);
        state.blocks("ids", 37, long[].class);
        state.registerReplicated("table", new int[3]);
        assertThrows(StateMismatchException.class, () -> Redistribution.assemble(state, 4, 0, 2, parts));
    }

    private static RankState newRankWithOwn(double[] own) {
        RankState state = new RankState();
        state.placeAt(0, 2);
        state.blocks("field", LENGTH, double[].class);
        state.blocks("ids", 37, long[].class);
        state.registerReplicated("table", new int[3]);
        state.register("own", own);
        return state;
    }

    @SuppressWarnings("unchecked")
    private static Blocks<double[]> castDoubles(Blocks<?> blocks) {
        return (Blocks<double[]>) blocks;
    }
}
