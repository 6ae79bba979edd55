package org.mpirunft.bridge.control;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * Watches the control directory for a pause order ({@code pause.json}, a {@link PauseOrder})
 * until the node daemon delivers orders over its socket. A new order id is handed to the
 * listener once, on the watcher's thread; a malformed file is reported once and ignored.
 */
public final class PauseWatcher implements AutoCloseable {
    public static final String ORDER_FILE = "pause.json";
    private static final Logger LOG = Logger.getLogger(PauseWatcher.class.getName());
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final Path orderFile;
    private final Duration period;
    private final Consumer<PauseOrder> listener;
    private final Thread thread;
    private volatile boolean running = true;
    private long lastId;
    private String lastError;

    public PauseWatcher(Path controlDirectory, Duration period, String who, Consumer<PauseOrder> listener) {
        this.orderFile = controlDirectory.resolve(ORDER_FILE);
        this.period = period;
        this.listener = listener;
        // Orders already present at start are old news for this incarnation.
        this.lastId = read().map(PauseOrder::id).orElse(0L);
        this.thread = new Thread(this::loop, "pause-watcher-" + who);
        this.thread.setDaemon(true);
    }

    public PauseWatcher start() {
        thread.start();
        return this;
    }

    /** The order on file right now, read now: it may not have reached the listener yet. */
    public Optional<PauseOrder> onFile() {
        return read();
    }

    private void loop() {
        while (running) {
            read().filter(order -> order.id() != lastId).ifPresent(order -> {
                lastId = order.id();
                listener.accept(order);
            });
            try {
                Thread.sleep(period.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private Optional<PauseOrder> read() {
        try {
            return Optional.of(JSON.readValue(Files.readAllBytes(orderFile), PauseOrder.class));
        } catch (NoSuchFileException absent) {
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            String error = orderFile + " is not a valid pause order: " + e.getMessage().lines().findFirst().orElse("");
            if (!error.equals(lastError)) {
                lastError = error;
                LOG.warning(error);
            }
            return Optional.empty();
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
