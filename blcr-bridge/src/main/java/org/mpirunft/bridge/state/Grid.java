package org.mpirunft.bridge.state;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * This rank's block of a global {@code rows} x {@code columns} matrix distributed in 2-D blocks
 * over a process grid, registered with {@link RankState#grid}. The grid of {@code n} ranks is
 * {@link #dimensions(int)}: as square as {@code n} allows, more rows than columns; rank {@code r}
 * sits at grid row {@code r / gridColumns}, grid column {@code r % gridColumns} (the order of
 * {@code MPI_Cart_create}). Rows and columns are each split in 1-D blocks
 * ({@link BlockDistribution}); the block is stored row-major, {@link #rows()} x {@link #columns()}.
 * The accessors compute the layout from the state's current place on each call (it changes
 * when the job shrinks): read them once per step, not per element.
 *
 * @param <A> the array type, {@code double[]} for example
 */
public final class Grid<A> extends Distributed<A> {
    private final long globalRows;
    private final long globalColumns;

    Grid(RankState state, String name, EntryType type, Class<A> arrayType, long rows, long columns) {
        super(state, name, type, arrayType);
        if (rows < 0 || columns < 0) {
            throw new IllegalArgumentException("grid '" + name + "': rows and columns must be 0 or more, got " + rows + " x " + columns);
        }
        this.globalRows = rows;
        this.globalColumns = columns;
        allocate();
    }

    /**
     * The process grid of {@code ranks} ranks, {rows, columns}: the factor pair closest to a
     * square, rows &gt;= columns (4: 2 x 2, 3: 3 x 1, 6: 3 x 2, 8: 4 x 2).
     */
    public static int[] dimensions(int ranks) {
        if (ranks < 1) {
            throw new IllegalArgumentException("a process grid needs at least 1 rank, got " + ranks);
        }
        int columns = (int) Math.sqrt(ranks);
        while (ranks % columns != 0) {
            columns--;
        }
        return new int[] {ranks / columns, columns};
    }

    public long globalRows() {
        return globalRows;
    }

    public long globalColumns() {
        return globalColumns;
    }

    /** The process grid's rows, for the state's current rank count. */
    public int gridRows() {
        return dimensions(state.ranks())[0];
    }

    public int gridColumns() {
        return dimensions(state.ranks())[1];
    }

    /** This rank's grid row. */
    public int gridRow() {
        return state.rank() / gridColumns();
    }

    public int gridColumn() {
        return state.rank() % gridColumns();
    }

    /** The rank at grid row {@code row}, grid column {@code column}, or -1 off the grid (MPI_PROC_NULL's place). */
    public int rankAt(int row, int column) {
        return row < 0 || column < 0 || row >= gridRows() || column >= gridColumns() ? -1 : row * gridColumns() + column;
    }

    /** The global index of this block's first row. */
    public long rowStart() {
        return new BlockDistribution(globalRows, gridRows()).start(gridRow());
    }

    /** This block's rows. */
    public int rows() {
        return (int) new BlockDistribution(globalRows, gridRows()).size(gridRow());
    }

    public long columnStart() {
        return new BlockDistribution(globalColumns, gridColumns()).start(gridColumn());
    }

    /** This block's columns: the length of each of its rows in {@link #array()}. */
    public int columns() {
        return (int) new BlockDistribution(globalColumns, gridColumns()).size(gridColumn());
    }

    @Override
    long sizeOf(int rank, int ranks) {
        int[] dims = dimensions(ranks);
        return new BlockDistribution(globalRows, dims[0]).size(rank / dims[1]) * new BlockDistribution(globalColumns, dims[1]).size(rank % dims[1]);
    }

    /**
     * Each old block that overlaps this one gives one run per overlapping row: the row's
     * overlapping columns, contiguous in both row-major blocks.
     */
    @Override
    List<BlockDistribution.Piece> piecesFrom(int fromRanks, int rank, int ranks) {
        int[] to = dimensions(ranks);
        int[] from = dimensions(fromRanks);
        BlockDistribution toRows = new BlockDistribution(globalRows, to[0]);
        BlockDistribution toColumns = new BlockDistribution(globalColumns, to[1]);
        BlockDistribution fromRows = new BlockDistribution(globalRows, from[0]);
        BlockDistribution fromColumns = new BlockDistribution(globalColumns, from[1]);
        int row = rank / to[1];
        int column = rank % to[1];
        long width = toColumns.size(column);
        List<BlockDistribution.Piece> pieces = new ArrayList<>();
        for (BlockDistribution.Piece rowRun : toRows.piecesFrom(fromRows, row)) {
            for (BlockDistribution.Piece columnRun : toColumns.piecesFrom(fromColumns, column)) {
                int owner = rowRun.fromRank() * from[1] + columnRun.fromRank();
                long ownerWidth = fromColumns.size(columnRun.fromRank());
                for (long r = 0; r < rowRun.length(); r++) {
                    pieces.add(new BlockDistribution.Piece(owner, (rowRun.fromOffset() + r) * ownerWidth + columnRun.fromOffset(),
                            (rowRun.toOffset() + r) * width + columnRun.toOffset(), columnRun.length()));
                }
            }
        }
        return pieces;
    }

    @Override
    Map<String, Long> shape() {
        return Map.of("rows", globalRows, "columns", globalColumns);
    }
}
