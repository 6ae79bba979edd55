package org.mpirunft.npb.mg;

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
 * {@link MgComm} for ranks that are threads of one JVM, so the decomposition is tested
 * without MPI. Each collective posts this rank's buffers, meets the others at a barrier,
 * reads theirs, and meets them again before anyone reuses a buffer.
 */
final class InProcessMgComm implements MgComm {
    /** One rank's body. */
    interface RankBody {
        void run(MgComm comm) throws Exception;
    }

    private final int rank;
    private final Shared shared;

    private static final class Shared {
        final int size;
        final CyclicBarrier barrier;
        final double[][][] posted;

        Shared(int size) {
            this.size = size;
            this.barrier = new CyclicBarrier(size);
            this.posted = new double[size][][];
        }
    }

    private InProcessMgComm(int rank, Shared shared) {
        this.rank = rank;
        this.shared = shared;
    }

    /** Runs {@code body} on {@code size} ranks, one thread each, and waits for all of them. */
    static void run(int size, RankBody body) throws Exception {
        Shared shared = new Shared(size);
        ExecutorService pool = Executors.newFixedThreadPool(size);
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (int rank = 0; rank < size; rank++) {
                InProcessMgComm comm = new InProcessMgComm(rank, shared);
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
        return shared.size;
    }

    @Override
    public void shiftPlanes(double[] toUp, double[] fromDown, double[] toDown, double[] fromUp, int count) {
        post(toUp, toDown);
        int up = (rank + 1) % shared.size;
        int down = (rank - 1 + shared.size) % shared.size;
        System.arraycopy(shared.posted[down][0], 0, fromDown, 0, count);
        System.arraycopy(shared.posted[up][1], 0, fromUp, 0, count);
        await();
    }

    @Override
    public void allGather(double[] mine, int count, double[] all) {
        post(mine);
        for (int r = 0; r < shared.size; r++) {
            System.arraycopy(shared.posted[r][0], 0, all, r * count, count);
        }
        await();
    }

    @Override
    public void sum(double[] values) {
        reduce(values, false);
    }

    @Override
    public void max(double[] values) {
        reduce(values, true);
    }

    private void reduce(double[] values, boolean max) {
        post(values);
        double[] result = shared.posted[0][0].clone();
        for (int r = 1; r < shared.size; r++) {
            for (int i = 0; i < result.length; i++) {
                double x = shared.posted[r][0][i];
                result[i] = max ? Math.max(result[i], x) : result[i] + x;
            }
        }
        await();
        System.arraycopy(result, 0, values, 0, values.length);
    }

    private void post(double[]... buffers) {
        shared.posted[rank] = buffers;
        await();
    }

    private void await() {
        try {
            shared.barrier.await(5, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("rank " + rank + " interrupted in a collective", e);
        } catch (BrokenBarrierException | TimeoutException e) {
            throw new IllegalStateException("rank " + rank + ": another rank failed in a collective", e);
        }
    }
}
