package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.logging.Logger;
import org.mpirunft.bridge.internal.WorldRepair.ReplacementLauncher;
import org.mpirunft.bridge.ulfm.Pmix;

/**
 * The spawn path of a {@link ReplacementAttempt}, when no warm spare is there: the root starts
 * the replacements itself through PMIx, told to connect to a port of its own, waits for their
 * answer on that port's rendezvous, ends a rendezvous that nobody will answer ({@link StandIn}),
 * and stops replacements an attempt that failed leaves behind. The warm spares' path is
 * {@link SpareRendezvous}.
 */
final class SpawnRendezvous {
    private static final Logger LOG = Logger.getLogger(SpawnRendezvous.class.getName());

    private SpawnRendezvous() {
    }

    /** One app per lost rank: this JVM's command, on the host given for it, told the port to connect to. */
    static List<Pmix.App> apps(int[] lost, Map<Integer, String> hosts, String port, ReplacementLauncher launcher) {
        List<String> environment = new ArrayList<>();
        environment.add("OMPI_PARENT_PORT=" + port);
        // As MPI_Comm_spawn does: the parent's MCA settings go to the child.
        System.getenv().forEach((name, value) -> {
            if (name.startsWith("OMPI_MCA_")) {
                environment.add(name + "=" + value);
            }
        });
        List<String> argv = new ArrayList<>();
        argv.add(launcher.command());
        argv.addAll(List.of(launcher.arguments()));
        String directory = System.getProperty("user.dir");
        List<Pmix.App> apps = new ArrayList<>();
        for (int rank : lost) {
            String host = hosts.get(rank);
            // PRRTE needs the slot count in the host value, or it reports "not enough slots".
            apps.add(new Pmix.App(argv, environment, directory, host == null ? null : host + ":1"));
        }
        return apps;
    }

    /**
     * Returns once the replacements answered the survivors' rendezvous on {@code port} (or the
     * stand-in did in their place), in a PMIx wait rather than in MPI_Comm_accept, whose
     * survivors poll without rest while the replacements' JVMs start. The answer is read once
     * only, so it is published again for the accept that follows.
     */
    static String awaitReplacements(String port) {
        String key = answerKey(port);
        String answer = Pmix.awaitPublished(key);
        try {
            Pmix.publish(key, answer);
        } catch (Pmix.PmixException e) {
            // The stand-in published an answer in the meantime: the accept reads that one and fails.
            LOG.fine(() -> "the replacements' answer was not published again: " + e.getMessage());
        }
        return answer;
    }

    /** Stops the replacements of job {@code job} on a thread of its own: nothing waits for it. */
    static void stop(String job) {
        Thread.ofPlatform().daemon().name("kill-" + job).start(() -> {
            try {
                Pmix.killJob(job);
            } catch (RuntimeException e) {
                LOG.fine(() -> "stopping the replacements of a failed attempt (" + job + "): " + e.getMessage());
            }
        });
    }

    /**
     * Ends a rendezvous that no replacement will answer. The survivors' root waits for the
     * replacements to publish who they are; one that died first never does, and the wait (like
     * Open MPI's own in MPI_Comm_accept) has no end. When the scheduler's placement is superseded (its
     * spare, or a survivor, was lost), or after a delay no start-up takes, the root publishes an
     * answer in their place that Open MPI rejects before it connects to anyone: a whole job
     * ("NSPACE.*") without its size. The accept then fails at once on every survivor, before
     * PMIx_Connect (which was seen to wait on a dead replacement past its timeout), and the
     * repair tries again; a replacement still alive is killed with the attempt.
     */
    static final class StandIn {
        /**
         * Far longer than a replacement takes from its spawn to the rendezvous: 0.2-1 s on an
         * idle machine, over 10 s on a loaded CI machine, where a stand-in that came first left
         * the replacement's MPI_Init to time out and abort, and PRRTE ended the job with it.
         */
        static final long DELAY_MILLIS = 30_000;
        private final Thread thread;

        private StandIn(Thread thread) {
            this.thread = thread;
        }

        static StandIn start(String port, String job, CompletableFuture<Void> superseded) {
            return new StandIn(Thread.ofPlatform().daemon().name("rendezvous-stand-in").start(() -> {
                try {
                    superseded.get(DELAY_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                } catch (TimeoutException | ExecutionException e) {
                    // The delay is up: stand in all the same.
                }
                try {
                    Pmix.publish(answerKey(port), answer(job));
                    LOG.info(() -> "the replacements (" + job + ") did not answer the survivors' rendezvous in time, or their "
                            + "placement was superseded; ending it");
                } catch (RuntimeException e) {
                    // The replacements published first: their own answer is on its way.
                    LOG.fine(() -> "stand-in for " + job + " not published: " + e.getMessage());
                }
            }));
        }

        /** Open MPI's form for a whole job is "NSPACE.*:SIZE"; without SIZE it is refused. */
        static String answer(String job) {
            return job + ".*";
        }

        void cancel() {
            thread.interrupt();
        }
    }

    /** Where Open MPI's rendezvous on {@code port} expects the connecting side's answer (who the replacements are). */
    private static String answerKey(String port) {
        return port + ":connect";
    }
}
