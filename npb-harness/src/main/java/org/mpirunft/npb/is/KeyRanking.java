package org.mpirunft.npb.is;

import java.nio.IntBuffer;
import java.util.Arrays;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;

/**
 * IS's ranking of the keys spread over the ranks, by buckets.
 *
 * <p>A key's bucket is its top bits. Each rank counts its keys per bucket and orders them by
 * bucket; one allreduce sums the counts (and carries the five test keys from the ranks that
 * hold them). From the totals every rank computes the same assignment of contiguous bucket
 * ranges to ranks, about 1/ranks of all keys each. An alltoall of counts and an alltoallv of
 * keys move every key to the rank owning its bucket, which counts its keys per value and sums
 * the counts: the rank of key value v is then the number of keys in lower ranges plus the
 * number of this range's keys below v.
 *
 * <p>The buffers are reused across iterations and only grow; nothing here is state, since a
 * ranking starts from the keys alone. The keys travel in direct buffers: Open MPI's Java
 * bindings (5.0.7) size the native copy of an array for alltoallv as the largest displacement
 * times its count, not plus, which overruns the native heap (on one rank it is zero bytes).
 */
final class KeyRanking {
    static final int TESTS = 5;

    private final int ranks;
    private final int rank;
    private final int keysPerRank;
    private final long totalKeys;
    private final int buckets;
    private final int bucketShift;

    /** This rank's keys per bucket, then the test keys this rank holds (0 for the others). */
    private final int[] contribution;
    /** The sums of {@link #contribution} over all ranks. */
    private final int[] totals;
    private final int[] bucketFill;
    private final int[] firstBucket;
    private final int[] endBucket;
    private final int[] sendCounts;
    private final int[] sendStart;
    private final int[] receiveCounts;
    private final int[] receiveStart;
    private final int[] boundaries;
    /** The keys ordered by bucket, for sending. */
    private final IntBuffer byBucket;
    private IntBuffer received = MPI.newIntBuffer(0);
    /** The received keys each put at its rank, for the full verification. */
    private int[] placed = new int[0];
    /** After {@link #rank}: keys of this range that are at most minKey + v, for each v. */
    private int[] atMost = new int[0];

    private int receivedKeys;
    private int minKey;
    private int endKey;
    private long lesserKeys;

    KeyRanking(int ranks, int rank, int keysPerRank, int maxKeyLog2, int bucketsLog2) {
        this.ranks = ranks;
        this.rank = rank;
        this.keysPerRank = keysPerRank;
        this.totalKeys = (long) keysPerRank * ranks;
        this.buckets = 1 << bucketsLog2;
        this.bucketShift = maxKeyLog2 - bucketsLog2;
        this.contribution = new int[buckets + TESTS];
        this.totals = new int[buckets + TESTS];
        this.bucketFill = new int[buckets];
        this.firstBucket = new int[ranks];
        this.endBucket = new int[ranks];
        this.sendCounts = new int[ranks];
        this.sendStart = new int[ranks];
        this.receiveCounts = new int[ranks];
        this.receiveStart = new int[ranks];
        this.boundaries = new int[4 * ranks];
        this.byBucket = MPI.newIntBuffer(keysPerRank);
    }

    /** Ranks every key; {@code testIndex} are the global indices of the keys to verify. */
    void rank(Intracomm world, int[] keys, int[] testIndex) throws MPIException {
        Arrays.fill(contribution, 0);
        for (int i = 0; i < keysPerRank; i++) {
            contribution[keys[i] >>> bucketShift]++;
        }
        for (int b = 0, at = 0; b < buckets; b++) {
            bucketFill[b] = at;
            at += contribution[b];
        }
        for (int i = 0; i < keysPerRank; i++) {
            int key = keys[i];
            byBucket.put(bucketFill[key >>> bucketShift]++, key);
        }
        for (int t = 0; t < TESTS; t++) {
            if (testIndex[t] / keysPerRank == rank) {
                contribution[buckets + t] = keys[testIndex[t] % keysPerRank];
            }
        }
        world.allReduce(contribution, totals, buckets + TESTS, MPI.INT, MPI.SUM);

        assignBuckets();
        for (int r = 0, at = 0; r < ranks; r++) {
            int count = 0;
            for (int b = firstBucket[r]; b < endBucket[r]; b++) {
                count += contribution[b];
            }
            sendStart[r] = at;
            sendCounts[r] = count;
            at += count;
        }
        world.allToAll(sendCounts, 1, MPI.INT, receiveCounts, 1, MPI.INT);
        receivedKeys = 0;
        for (int r = 0; r < ranks; r++) {
            receiveStart[r] = receivedKeys;
            receivedKeys += receiveCounts[r];
        }
        if (received.capacity() < receivedKeys) {
            received = MPI.newIntBuffer(receivedKeys + receivedKeys / 16);
        }
        world.allToAllv(byBucket, sendCounts, sendStart, MPI.INT, received, receiveCounts, receiveStart, MPI.INT);

        minKey = firstBucket[rank] << bucketShift;
        endKey = endBucket[rank] << bucketShift;
        lesserKeys = 0;
        for (int b = 0; b < firstBucket[rank]; b++) {
            lesserKeys += totals[b];
        }
        int range = endKey - minKey;
        if (atMost.length < range) {
            atMost = new int[range];
        }
        Arrays.fill(atMost, 0, range, 0);
        for (int i = 0; i < receivedKeys; i++) {
            atMost[received.get(i) - minKey]++;
        }
        for (int v = 1; v < range; v++) {
            atMost[v] += atMost[v - 1];
        }
    }

    /**
     * Contiguous bucket ranges, about totalKeys / ranks keys each: rank r's range ends with the
     * bucket where the running total first reaches (r + 1) / ranks of all keys. The same on
     * every rank, since it depends on the summed counts only.
     */
    private void assignBuckets() {
        int r = 0;
        long runningTotal = 0;
        firstBucket[0] = 0;
        for (int b = 0; b < buckets; b++) {
            runningTotal += totals[b];
            if (r < ranks - 1 && runningTotal >= totalKeys * (r + 1) / ranks) {
                endBucket[r] = b + 1;
                r++;
                firstBucket[r] = b + 1;
            }
        }
        endBucket[r] = buckets;
        for (r++; r < ranks; r++) {
            firstBucket[r] = buckets;
            endBucket[r] = buckets;
        }
    }

    /** Test key {@code t} of the last {@link #rank}, as every rank knows it. */
    int testKey(int t) {
        return totals[buckets + t];
    }

    /**
     * The rank (number of smaller keys) of test key {@code t} if this rank owns its value, or
     * -1. A key of 0 is not tested, as in the specification.
     */
    long testRank(int t) {
        int k = testKey(t);
        if (k <= 0 || k < minKey || k >= endKey) {
            return -1;
        }
        return lesserKeys + (k - 1 >= minKey ? atMost[k - 1 - minKey] : 0);
    }

    /**
     * Full verification after the last ranking: each key is put at its rank, and the keys must
     * then be in order within and across ranks, and all of them present. Consumes the counts
     * of the last ranking. The same verdict on every rank.
     */
    boolean fullyVerified(Intracomm world) throws MPIException {
        if (placed.length < receivedKeys) {
            placed = new int[receivedKeys];
        }
        int[] sorted = placed;
        for (int i = 0; i < receivedKeys; i++) {
            int key = received.get(i);
            sorted[--atMost[key - minKey]] = key;
        }
        int outOfOrder = 0;
        for (int i = 1; i < receivedKeys; i++) {
            if (sorted[i - 1] > sorted[i]) {
                outOfOrder++;
            }
        }
        int[] mine = {receivedKeys, receivedKeys > 0 ? sorted[0] : 0, receivedKeys > 0 ? sorted[receivedKeys - 1] : 0,
                outOfOrder};
        world.allGather(mine, 4, MPI.INT, boundaries, 4, MPI.INT);
        long keys = 0;
        long previousLast = Long.MIN_VALUE;
        boolean ordered = true;
        for (int r = 0; r < ranks; r++) {
            int count = boundaries[4 * r];
            keys += count;
            ordered &= boundaries[4 * r + 3] == 0;
            if (count > 0) {
                ordered &= previousLast <= boundaries[4 * r + 1];
                previousLast = boundaries[4 * r + 2];
            }
        }
        if (world.getRank() == 0 && (!ordered || keys != totalKeys)) {
            System.out.printf("[npb] IS full verification failed: %d keys of %d, order %s%n", keys, totalKeys,
                    ordered ? "correct" : "wrong");
        }
        return ordered && keys == totalKeys;
    }
}
