package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.mpirunft.daemon.protocol.ControlReply;

/**
 * The local clients subscribed to a job's events (the launcher, {@code subscribe}): each gets the
 * job as it is when it subscribes, then every event of the job in order, until the job finishes
 * or the client stops reading. Each client is written by its own connection's thread
 * ({@link ControlServer.Client#send} queues), so a slow one holds up no transition.
 */
final class JobSubscribers {
    private final SchedulerPort scheduler;
    /** Open subscriptions, by job; a job's list is also the lock that orders its events. */
    private final Map<String, List<ControlServer.Client>> subscribers = new ConcurrentHashMap<>();

    JobSubscribers(SchedulerPort scheduler) {
        this.scheduler = scheduler;
    }

    /**
     * Keeps {@code client} for the job's events and sends it the job as it is; under the job's
     * subscriber lock, so no transition is published between the snapshot and the subscription.
     */
    void subscribe(String job, ControlServer.Client client) {
        List<ControlServer.Client> clients = subscribers.computeIfAbsent(job, j -> new CopyOnWriteArrayList<>());
        synchronized (clients) {
            clients.add(client);
            scheduler.job(job).ifPresent(record -> {
                try {
                    client.send(new ControlReply.JobEvent(ControlReply.VERSION, job, null, scheduler.status(record)));
                } catch (IOException e) {
                    clients.remove(client);
                }
            });
        }
    }

    /** Whether anyone subscribed to {@code job}'s events. */
    boolean any(String job) {
        return subscribers.containsKey(job);
    }

    /** Sends {@code reply} to the job's subscribers. */
    void publish(String job, ControlReply reply) {
        List<ControlServer.Client> clients = subscribers.get(job);
        if (clients == null) {
            return;
        }
        synchronized (clients) {
            for (ControlServer.Client client : clients) {
                try {
                    client.send(reply);
                } catch (IOException e) {
                    clients.remove(client);
                }
            }
        }
    }

    /** The job finished: its subscriptions end. */
    void forget(String job) {
        subscribers.remove(job);
    }
}
