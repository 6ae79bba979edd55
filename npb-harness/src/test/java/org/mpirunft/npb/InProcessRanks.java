package org.mpirunft.npb;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Ranks that are threads of one JVM and exchange doubles, so that a kernel's decomposition is
 * tested without MPI. A kernel's own communication interface (BT's, LU's, SP's, FT's, MG's) is
 * implemented over this in its tests, as it is over MPI in the kernel.
 *
 * <p>A send never blocks: the message is copied into the receiver's queue, as MPI sends small
 * messages eagerly. So any exchange order that is correct under MPI with buffered sends works
 * here; a receive that never matches fails the test after {@link #RECEIVE_TIMEOUT_SECONDS}
 * instead of hanging it. An interrupted receive fails with an unchecked exception, since the
 * kernels' communication interfaces declare only MPI's.
 */
public final class InProcessRanks {
    /** One rank's body. */
    public interface Body {
        void run(InProcessRanks rank) throws Exception;
    }

    static final long RECEIVE_TIMEOUT_SECONDS = 300;
    /** Tags at and above this one belong to the collectives below. */
    private static final int COLLECTIVE_TAG = 1 << 30;

    private record Channel(int source, int destination, int tag) {
    }

    private final int rank;
    private final int size;
    private final Map<Channel, BlockingQueue<double[]>> mailboxes;

    private InProcessRanks(int rank, int size, Map<Channel, BlockingQueue<double[]>> mailboxes) {
        this.rank = rank;
        this.size = size;
        this.mailboxes = mailboxes;
    }

    /** Runs {@code body} on {@code size} ranks, one thread each, and waits for all of them; the first failure is thrown. */
    public static void run(int size, Body body) throws Exception {
        Map<Channel, BlockingQueue<double[]>> mailboxes = new ConcurrentHashMap<>();
        ExecutorService pool = Executors.newFixedThreadPool(size);
        try {
            List<Future<?>> ranks = new ArrayList<>();
            for (int rank = 0; rank < size; rank++) {
                InProcessRanks self = new InProcessRanks(rank, size, mailboxes);
                ranks.add(pool.submit(() -> {
                    body.run(self);
                    return null;
                }));
            }
            for (Future<?> rank : ranks) {
                rank.get(30, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    /** Sends {@code count} values of {@code buffer} from {@code offset} to {@code destination}; returns at once. */
    public void send(double[] buffer, int offset, int count, int destination, int tag) {
        checkTag(tag);
        post(buffer, offset, count, destination, tag);
    }

    /** Receives the next message from {@code source} with {@code tag}, which must hold {@code count} values, into {@code buffer} at {@code offset}. */
    public void receive(double[] buffer, int offset, int count, int source, int tag) {
        checkTag(tag);
        take(buffer, offset, count, source, tag);
    }

    /** Block {@code d} of {@code send} ({@code block} values) goes to rank d, whose block r of {@code receive} it becomes. */
    public void allToAll(double[] send, double[] receive, int block) {
        for (int destination = 0; destination < size; destination++) {
            post(send, destination * block, block, destination, COLLECTIVE_TAG);
        }
        for (int source = 0; source < size; source++) {
            take(receive, source * block, block, source, COLLECTIVE_TAG);
        }
    }

    /** Element-wise sum over the ranks, in place, added in rank order on every rank so that all get the same bits. */
    public void sum(double[] values) {
        double[][] all = gather(values);
        for (int i = 0; i < values.length; i++) {
            double total = 0;
            for (double[] one : all) {
                total += one[i];
            }
            values[i] = total;
        }
    }

    /** Element-wise maximum over the ranks, in place. */
    public void max(double[] values) {
        double[][] all = gather(values);
        for (int i = 0; i < values.length; i++) {
            double most = Double.NEGATIVE_INFINITY;
            for (double[] one : all) {
                most = Math.max(most, one[i]);
            }
            values[i] = most;
        }
    }

    /** Every rank's first {@code count} values of {@code mine}, in rank order, into {@code all} on every rank. */
    public void allGather(double[] mine, int count, double[] all) {
        double[][] every = gather(Arrays.copyOf(mine, count));
        for (int source = 0; source < size; source++) {
            System.arraycopy(every[source], 0, all, source * count, count);
        }
    }

    private double[][] gather(double[] values) {
        for (int destination = 0; destination < size; destination++) {
            post(values, 0, values.length, destination, COLLECTIVE_TAG + 1);
        }
        double[][] all = new double[size][values.length];
        for (int source = 0; source < size; source++) {
            take(all[source], 0, values.length, source, COLLECTIVE_TAG + 1);
        }
        return all;
    }

    private void post(double[] buffer, int offset, int count, int destination, int tag) {
        double[] message = new double[count];
        System.arraycopy(buffer, offset, message, 0, count);
        mailbox(rank, destination, tag).add(message);
    }

    private void take(double[] buffer, int offset, int count, int source, int tag) {
        double[] message;
        try {
            message = mailbox(source, rank, tag).poll(RECEIVE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("rank " + rank + " interrupted in a receive from rank " + source, e);
        }
        if (message == null) {
            throw new IllegalStateException("rank " + rank + " received nothing from rank " + source + " (tag " + tag + ") in "
                    + RECEIVE_TIMEOUT_SECONDS + " s");
        }
        if (message.length != count) {
            throw new IllegalStateException("rank " + rank + " expected " + count + " values from rank " + source + " (tag " + tag
                    + "), got " + message.length);
        }
        System.arraycopy(message, 0, buffer, offset, count);
    }

    private BlockingQueue<double[]> mailbox(int source, int destination, int tag) {
        return mailboxes.computeIfAbsent(new Channel(source, destination, tag), c -> new LinkedBlockingQueue<>());
    }

    private static void checkTag(int tag) {
        if (tag < 0 || tag >= COLLECTIVE_TAG) {
            throw new IllegalArgumentException("tag must be in [0, " + COLLECTIVE_TAG + "), got " + tag);
        }
    }
}
