package org.mpirunft.npb.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;

/** Writers started together, one platform thread each, as ranks' writer threads start at a checkpoint. */
final class Writers {
    private Writers() {
    }

    /** What writer {@code writer} does once all are ready. */
    @FunctionalInterface
    interface Write {
        void run(int writer) throws IOException;
    }

    /**
     * Runs {@code count} writers from one barrier and waits for all; the first failure is thrown
     * after every writer ended, with {@code what} in front of its message.
     */
    static void together(int count, String name, String what, Write write) throws IOException, InterruptedException {
        IOException[] failures = new IOException[count];
        CyclicBarrier start = new CyclicBarrier(count);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int writer = i;
            threads.add(Thread.ofPlatform().name(name + "-" + i).start(() -> {
                try {
                    start.await();
                    write.run(writer);
                } catch (IOException e) {
                    failures[writer] = e;
                } catch (Exception e) {
                    failures[writer] = new IOException(e);
                }
            }));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        for (IOException failure : failures) {
            if (failure != null) {
                throw new IOException(what + ": " + failure.getMessage(), failure);
            }
        }
    }
}
