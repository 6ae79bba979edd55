package org.mpirunft.bridge.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.mpirunft.bridge.state.DeltaPart;

/**
 * The blocks of a part that changed since a base epoch's, as (piece, offset, length) triples in
 * order ({@link DeltaPart#BLOCK_BYTES} blocks, runs of adjacent changed blocks merged; piece 0,
 * the header, always goes whole): what a partner copy sends instead of the whole part, and how
 * the holder composes the new copy from its copy of the base. Pure functions on buffers of the
 * same sizes.
 */
final class ChangedRuns {
    private ChangedRuns() {
    }

    /** Copies exactly {@code runs} ((piece, offset, length) triples) of {@code from} into {@code to} (same sizes). */
    static void copyRuns(List<ByteBuffer> from, List<ByteBuffer> to, long[] runs) {
        for (int i = 0; i < runs.length; i += 3) {
            int piece = (int) runs[i];
            to.get(piece).duplicate().put((int) runs[i + 1], from.get(piece).duplicate(), (int) runs[i + 1], (int) runs[i + 2]);
        }
    }

    /** The bytes of {@code runs} that {@code less} does not cover, as runs in the same order (both sorted, as changedRuns makes them). */
    static long[] minus(long[] runs, long[] less) {
        List<Long> out = new ArrayList<>();
        int j = 0;
        for (int i = 0; i < runs.length; i += 3) {
            long piece = runs[i];
            long at = runs[i + 1];
            long end = at + runs[i + 2];
            while (j < less.length && (less[j] < piece || (less[j] == piece && less[j + 1] + less[j + 2] <= at))) {
                j += 3;
            }
            for (int k = j; k < less.length && less[k] == piece && less[k + 1] < end && at < end; k += 3) {
                long cutStart = less[k + 1];
                long cutEnd = cutStart + less[k + 2];
                if (cutStart > at) {
                    out.addAll(List.of(piece, at, cutStart - at));
                }
                at = Math.max(at, cutEnd);
            }
            if (at < end) {
                out.addAll(List.of(piece, at, end - at));
            }
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /** Copies every byte of {@code from} that {@code runs} does not cover into {@code to} (same sizes). */
    static void copyUnchanged(List<ByteBuffer> from, List<ByteBuffer> to, long[] runs) {
        int run = 0;
        for (int piece = 1; piece < to.size(); piece++) {
            long at = 0;
            long size = to.get(piece).capacity();
            while (at < size) {
                long next = size;
                long end = size;
                if (run < runs.length && runs[run] == piece) {
                    next = runs[run + 1];
                    end = next + runs[run + 2];
                }
                if (next > at) {
                    to.get(piece).duplicate().put((int) at, from.get(piece).duplicate(), (int) at, (int) (next - at));
                }
                at = end;
                if (next < size) {
                    run += 3;
                }
            }
        }
    }

    /**
     * The regions of {@code pieces} (but the header, piece 0, which always goes whole) whose
     * blocks differ from {@code basePieces}'s, as (piece, offset, length) triples in order, runs of
     * adjacent changed blocks merged. Null if the pieces do not have the same sizes.
     */
    static long[] changedRuns(List<ByteBuffer> pieces, List<ByteBuffer> basePieces) {
        if (pieces.size() != basePieces.size()) {
            return null;
        }
        List<Long> runs = new ArrayList<>();
        for (int piece = 1; piece < pieces.size(); piece++) {
            ByteBuffer mine = pieces.get(piece);
            ByteBuffer theirs = basePieces.get(piece);
            if (mine.capacity() != theirs.capacity()) {
                return null;
            }
            long runStart = -1;
            for (int at = 0; at < mine.capacity(); at += DeltaPart.BLOCK_BYTES) {
                int length = Math.min(DeltaPart.BLOCK_BYTES, mine.capacity() - at);
                boolean changed = mine.slice(at, length).mismatch(theirs.slice(at, length)) != -1;
                if (changed && runStart < 0) {
                    runStart = at;
                } else if (!changed && runStart >= 0) {
                    runs.addAll(List.of((long) piece, runStart, at - runStart));
                    runStart = -1;
                }
            }
            if (runStart >= 0) {
                runs.addAll(List.of((long) piece, runStart, mine.capacity() - runStart));
            }
        }
        return runs.stream().mapToLong(Long::longValue).toArray();
    }
}
