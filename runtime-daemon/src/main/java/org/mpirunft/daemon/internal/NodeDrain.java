package org.mpirunft.daemon.internal;

import java.util.Optional;
import java.util.logging.Logger;

/**
 * Whether this node takes work, as its own daemon decides it (Slurm keeps a node's drain the
 * same way, per node): drained by the operator ({@code ftd drain NODE}) until resumed, or by the
 * node's health check while it fails. The drain travels with the node's load report to every
 * daemon; the scheduler's leader places no rank on a drained node and moves the ranks it has to
 * spares. Thread-safe.
 */
final class NodeDrain {
    private static final Logger LOG = Logger.getLogger(NodeDrain.class.getName());

    private final String node;
    /** Told of every change: the load report goes out at once, not at the next period. */
    private final Runnable changed;
    private String byOperator = "";
    private String byHealthCheck = "";

    NodeDrain(String node, Runnable changed) {
        this.node = node;
        this.changed = changed;
    }

    /** Why the node is drained, empty while in service; the operator's reason first. */
    synchronized String reason() {
        if (!byOperator.isEmpty()) {
            return "drained by the operator: " + byOperator;
        }
        return byHealthCheck.isEmpty() ? "" : "health check failed: " + byHealthCheck;
    }

    /** The operator drains the node; {@code reason} is shown wherever the drain is. */
    void drain(String reason) {
        String why = reason == null || reason.isBlank() ? "no reason given" : reason.strip();
        update(() -> byOperator = why);
        LOG.warning(() -> node + ": drained by the operator (" + why + "); its ranks are moved to spares");
    }

    /** The operator puts the node back in service; a failing health check still drains it. */
    void resume() {
        update(() -> byOperator = "");
        LOG.info(() -> node + ": resumed by the operator" + (reason().isEmpty() ? "" : "; still " + reason()));
    }

    /** The health check's verdict: its failure, or empty when it passed. */
    void healthChecked(Optional<String> failure) {
        String now = failure.orElse("");
        String before;
        synchronized (this) {
            before = byHealthCheck;
        }
        if (now.equals(before)) {
            return;
        }
        update(() -> byHealthCheck = now);
        if (now.isEmpty()) {
            LOG.info(() -> node + ": the health check passes again");
        } else {
            LOG.warning(() -> node + ": the health check failed (" + now + "); draining the node, its ranks are moved to spares");
        }
    }

    private void update(Runnable change) {
        String before;
        String after;
        synchronized (this) {
            before = reason();
            change.run();
            after = reason();
        }
        if (!before.equals(after)) {
            changed.run();
        }
    }
}
