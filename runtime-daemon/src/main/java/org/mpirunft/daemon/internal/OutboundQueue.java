package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Messages to one reader over its connection, written in order by a thread of their own, so the
 * thread that sends them (most often the membership thread, applying a transition) never waits
 * on a reader. A reader that lets {@code bound} messages pile up counts as not reading: the
 * message is refused and the queue ends, as it does when a write fails. Either way
 * {@code onEnd} runs once, to close the connection; a live client connects again.
 *
 * @param <T> the messages
 */
final class OutboundQueue<T> {
    /** Writes one message to the connection. */
    @FunctionalInterface
    interface Writer<T> {
        void write(T message) throws IOException;
    }

    /** Put in the queue to end the writer; compared by identity, never written. */
    private static final Object END = new Object();

    private final BlockingQueue<Object> queue;
    private final Writer<T> writer;
    private final Runnable onEnd;
    private final AtomicBoolean ended = new AtomicBoolean();

    /**
     * @param bound  messages queued before the reader counts as not reading
     * @param writer writes one message, on the queue's own thread
     * @param onEnd  runs once when the queue ends: on {@link #end}, an overflow or a failed write
     */
    OutboundQueue(int bound, Writer<T> writer, Runnable onEnd) {
        this.queue = new LinkedBlockingQueue<>(bound);
        this.writer = writer;
        this.onEnd = onEnd;
    }

    /** Starts writing, on a thread of {@code threads}; messages offered before wait for it. */
    void start(Executor threads) {
        threads.execute(this::drain);
    }

    /** Queues {@code message}; false, and the queue ends, if {@code bound} messages are still unwritten. False once ended. */
    boolean offer(T message) {
        if (ended.get()) {
            return false;
        }
        if (!queue.offer(message)) {
            end();
            return false;
        }
        return true;
    }

    boolean ended() {
        return ended.get();
    }

    /** Ends the queue: what is not yet written is dropped, the writer stops, {@code onEnd} runs (once). */
    void end() {
        if (ended.compareAndSet(false, true)) {
            queue.clear();
            queue.offer(END);
            onEnd.run();
        }
    }

    @SuppressWarnings("unchecked")
    private void drain() {
        try {
            for (Object next = queue.take(); next != END && !ended.get(); next = queue.take()) {
                writer.write((T) next);
            }
        } catch (IOException e) {
            end();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
