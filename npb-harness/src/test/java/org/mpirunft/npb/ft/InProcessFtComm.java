package org.mpirunft.npb.ft;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link FtComm} for ranks that are threads of one JVM, so the transposes are tested without
 * MPI. Each collective posts this rank's buffer, meets the others at a barrier, reads theirs,
 * and meets them again before anyone reuses a buffer.
 */
final class InProcessFtComm implements FtComm {
    /** One rank's body. */
    interface RankBody {
        void run(FtComm comm) throws Exception;
    }

    private final int rank;
    private final int size;
    private final CyclicBarrier barrier;
    private final double[][] posted;

    private InProcessFtComm(int rank, int size, CyclicBarrier barrier, double[][] posted) {
        this.rank = rank;
        this.size = size;
        this.barrier = barrier;
        this.posted = posted;
    }

    /** Runs {@code body} on {@code size} ranks, one thread each, and waits for all of them. */
    static void run(int size, RankBody body) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(size);
        double[][] posted = new double[size][];
        ExecutorService pool = Executors.newFixedThreadPool(size);
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (int rank = 0; rank < size; rank++) {
                FtComm comm = new InProcessFtComm(rank, size, barrier, posted);
                ranks.add(pool.submit(() -> {
                    body.run(comm);
                    return null;
                }));
            }
            for (Future<?> rank : ranks) {
                rank.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public void allToAll(double[] send, double[] receive, int block) {
        posted[rank] = send;
        await();
        for (int r = 0; r < size; r++) {
            System.arraycopy(posted[r], rank * block, receive, r * block, block);
        }
        await();
    }

    @Override
    public void sum(double[] values) {
        posted[rank] = values;
        await();
        double[] result = posted[0].clone();
        for (int r = 1; r < size; r++) {
            for (int i = 0; i < result.length; i++) {
                result[i] += posted[r][i];
            }
        }
        await();
        System.arraycopy(result, 0, values, 0, values.length);
    }

    private void await() {
        try {
            barrier.await(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("rank " + rank + " interrupted in a collective", e);
        } catch (BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("rank " + rank + ": another rank failed in a collective", e);
        }
    }
}
