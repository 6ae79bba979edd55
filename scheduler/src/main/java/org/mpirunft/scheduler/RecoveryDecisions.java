package org.mpirunft.scheduler;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Logger;
import org.mpirunft.scheduler.policy.Placement;

/**
 * The leader's recovery decisions for a job: what a new failure ({@link FailureReports.Verdict})
 * does in the job's state (a pause, its extension, a relaunch, a stop), where the lost ranks go,
 * whether a pause may shrink the job instead, when the ranks' report completes a pause, and a
 * relaunch asked for. Each decision is one {@link SchedulerUpdate} proposed; the job moves when
 * it is applied.
 *
 * <p>Holds no state of its own: it reads the table and the view and proposes, all guarded by
 * the {@link SchedulerCore}'s lock.
 */
record RecoveryDecisions(String self, JobTable table, Placement placement, PlacementView views, Proposals proposals) {
    /** The core's logger: operators and benchmarks set the scheduler's log level by its name. */
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());

    /** A failure the table does not show yet: decided by the job's state. */
    void decide(FailureReports.Verdict failure) {
        JobRecord job = failure.job();
        Map<Integer, String> lost = failure.lost();
        Map<Integer, String> sparesLost = failure.sparesLost();
        String source = failure.source();
        String detail = failure.detail();
        switch (job.state()) {
            case RUNNING, MIGRATING -> {
                // In MIGRATING, the move is dropped either way: a pause from the last committed
                // epoch, or a restart, repairs whatever it had done.
                if (noRankSurvives(job, lost.keySet())) {
                    relaunchWithNoSurvivor(job, lost, Map.of(), source, detail);
                } else if (job.mode().recoversInPlace()) {
                    startRecovery(job, lost, source, detail);
                } else {
                    planRestart(job, lost, Map.of(), JobRecord.failureIdOf(lost), source, detail);
                }
            }
            case PAUSING -> {
                JobRecord.Recovery recovery = job.recovery().orElseThrow();
                Map<Integer, String> allLost = new TreeMap<>(recovery.lostRanks());
                allLost.putAll(lost);
                if (noRankSurvives(job, allLost.keySet())) {
                    Map<Integer, String> kept = new TreeMap<>(recovery.placement());
                    kept.keySet().removeAll(sparesLost.keySet());
                    relaunchWithNoSurvivor(job, allLost, kept, source, detail);
                } else {
                    extendRecovery(job, lost, sparesLost, source, detail);
                }
            }
            case RESTARTING -> {
                JobRecord.Recovery restart = job.recovery().orElseThrow();
                Map<Integer, String> all = new TreeMap<>(restart.lostRanks());
                all.putAll(lost);
                Map<Integer, String> kept = new TreeMap<>(restart.placement());
                kept.keySet().removeAll(sparesLost.keySet());
                kept.keySet().removeAll(lost.keySet());
                planRestart(job, all, kept, JobRecord.failureIdOf(all), source, detail);
            }
            case STOPPED -> {
            }
        }
    }

    /** See {@link SchedulerCore#restartNeeded}; this daemon leads. */
    void restartNeeded(String job, String source, String reason, FailureReport.Reporter reporter) {
        LOG.info(() -> self + ": job " + job + ": " + source + " asks for a restart: " + reason);
        if (table.job(job).map(j -> FailureReport.Reporter.isStale(reporter, j)).orElse(false)) {
            LOG.info(() -> self + ": job " + job + ": ignoring that: rank " + reporter.rank() + " on " + reporter.node()
                    + " is no longer the job's");
            return;
        }
        table.job(job).filter(j -> j.state() == JobState.RUNNING || j.state() == JobState.PAUSING)
                .filter(j -> !proposals.inFlight(j.job()))
                .ifPresent(j -> planRestart(j, views.lostOffView(j), j.recovery().map(JobRecord.Recovery::placement).orElse(Map.of()),
                        j.recovery().map(JobRecord.Recovery::failureId).orElse(""), source, reason));
    }

    /**
     * The ranks report a recovery done. It completes the recovery under way only if every lost
     * rank now runs on a live node other than the one it was lost on: ranks that finished an
     * earlier part of a recovery that was extended meanwhile (a spare lost, another rank lost)
     * still have the extended order to carry out. Without a rank-to-node table (an old reporter)
     * the failure id must match.
     */
    void complete(JobRecord job, SchedulerUpdate.RecoveryCompleted done) {
        JobRecord.Recovery recovery = job.recovery().orElseThrow();
        List<String> nodes = done.rankNodes();
        boolean repaired;
        if (recovery.placement().isEmpty() && !recovery.lostRanks().isEmpty()) {
            // A shrink: the survivors, in their old order, on the nodes they ran on; the first of
            // them only if the program runs on fewer (the others left the world).
            List<String> survivors = new ArrayList<>();
            for (int rank = 0; rank < job.rankNodes().size(); rank++) {
                if (!recovery.lostRanks().containsKey(rank)) {
                    survivors.add(job.rankNodes().get(rank));
                }
            }
            repaired = !nodes.isEmpty() && nodes.size() <= survivors.size() && nodes.equals(survivors.subList(0, nodes.size()));
        } else if (nodes.size() == job.rankNodes().size()) {
            Set<String> alive = views.alive();
            repaired = recovery.lostRanks().entrySet().stream()
                    .allMatch(e -> !nodes.get(e.getKey()).equals(e.getValue()) && alive.contains(nodes.get(e.getKey())));
        } else {
            repaired = nodes.isEmpty() && recovery.failureId().equals(done.failureId());
        }
        if (repaired) {
            proposals.propose(new SchedulerUpdate.RecoveryCompleted(SchedulerUpdate.VERSION, done.job(), recovery.failureId(), nodes,
                    done.epoch(), done.iteration(), done.split()));
        } else {
            LOG.info(() -> self + ": job " + job.job() + ": the ranks recovered from " + done.failureId() + " onto " + nodes
                    + ", but recovery " + recovery.failureId() + " (seq " + recovery.seq() + ") is not done yet; waiting for it");
        }
    }

    private void startRecovery(JobRecord job, Map<Integer, String> lost, String source, String detail) {
        Set<String> booked = table.bookedNodes();
        // A migration under way is dropped by the pause: its spares are the job's to use again.
        job.migration().ifPresent(m -> m.placement().values().forEach(spare -> {
            if (!job.rankNodes().contains(spare)) {
                booked.remove(spare);
            }
        }));
        Placement.Result result = placement.place(List.copyOf(lost.keySet()), views.inAllocation(job), booked);
        if (!result.placed()) {
            stop(job, "no-spare", result.stopReason().orElseThrow());
            return;
        }
        if (result.shrinks() && !canShrink(job, lost.keySet())) {
            return;
        }
        proposals.propose(new SchedulerUpdate.RecoveryStarted(SchedulerUpdate.VERSION, job.job(), JobRecord.failureIdOf(lost), source, lost,
                result.nodeByRank(), detail));
    }

    /** More lost ranks, or lost spares: the recovery under way grows, with new spares for what needs one. */
    private void extendRecovery(JobRecord job, Map<Integer, String> lost, Map<Integer, String> sparesLost, String source,
                                String detail) {
        JobRecord.Recovery recovery = job.recovery().orElseThrow();
        Map<Integer, String> allLost = new TreeMap<>(recovery.lostRanks());
        allLost.putAll(lost);
        Map<Integer, String> kept = new TreeMap<>(recovery.placement());
        kept.keySet().removeAll(sparesLost.keySet());
        List<Integer> toPlace = new ArrayList<>(lost.keySet());
        sparesLost.keySet().stream().filter(r -> !toPlace.contains(r)).forEach(toPlace::add);
        Set<String> booked = table.bookedNodes();
        booked.addAll(sparesLost.values());
        Placement.Result result = placement.place(toPlace, views.inAllocation(job), booked);
        if (!result.placed()) {
            stop(job, "no-spare", result.stopReason().orElseThrow());
            return;
        }
        if (result.shrinks() || recovery.placement().isEmpty()) {
            // A recovery that shrinks stays one: the ranks go on without every rank it lost.
            if (!canShrink(job, allLost.keySet())) {
                return;
            }
            kept.clear();
        } else {
            kept.putAll(result.nodeByRank());
        }
        proposals.propose(new SchedulerUpdate.RecoveryExtended(SchedulerUpdate.VERSION, job.job(), JobRecord.failureIdOf(allLost),
                recovery.seq() + 1, source, allLost, kept, detail));
    }

    /**
     * Whether a pause job lost every rank: no rank is left to roll back in place and call the
     * spares in (a warm spare waits to be called, and keeps mpirun running), so only a relaunch
     * from the last committed epoch goes on. A transparent job restores every node's images,
     * surviving or not.
     */
    private static boolean noRankSurvives(JobRecord job, Set<Integer> lost) {
        return job.mode() == RecoveryMode.PAUSE && lost.size() >= job.rankNodes().size();
    }

    /**
     * The relaunch of a pause job that lost every rank. Only the ranks whose node left the view
     * move ({@link #planRestart} adds them): a rank that died on a node still in the group (every
     * rank aborted) starts there again, so that a job whose ranks all died needs no spare per rank.
     * {@code keep} holds spares the pause had chosen.
     */
    private void relaunchWithNoSurvivor(JobRecord job, Map<Integer, String> lost, Map<Integer, String> keep, String source, String detail) {
        LOG.info(() -> self + ": job " + job.job() + ": every rank is lost " + lost + "; no rank survives to recover in place: a relaunch");
        planRestart(job, Map.of(), keep, JobRecord.failureIdOf(lost), source, detail + "; no rank survives to recover in place");
    }

    /**
     * Whether the job can go on without {@code lost} (when-no-spare: shrink); if not, it is
     * stopped, and says why. A transparent job's process images hold a fixed rank count.
     */
    private boolean canShrink(JobRecord job, Set<Integer> lost) {
        if (job.mode() == RecoveryMode.TRANSPARENT) {
            stop(job, "no-spare", "no free spare for rank(s) " + lost + ", and a transparent job cannot shrink (its process images hold "
                    + job.rankNodes().size() + " ranks); the job stops and keeps its checkpoints");
            return false;
        }
        if (lost.size() >= job.rankNodes().size()) {
            stop(job, "no-spare", "no free spare and no surviving rank to shrink to; the job stops and keeps its checkpoints");
            return false;
        }
        return true;
    }

    /**
     * A whole-job restart: every lost rank, and every rank on a node out of the view, goes to a
     * new node of the view; {@code keep} holds placements still good. A restart never plans a
     * node outside the group.
     */
    private void planRestart(JobRecord job, Map<Integer, String> lost, Map<Integer, String> keep, String failureId, String source,
                             String reason) {
        if (job.attempt() > job.maxRestarts()) {
            stop(job, "restarts-exhausted", "the job was relaunched " + (job.attempt() - 1) + " times, the most allowed; " + reason);
            return;
        }
        Set<String> alive = views.alive();
        Map<Integer, String> allLost = new TreeMap<>(lost);
        allLost.putAll(views.lostOffView(job));
        Map<Integer, String> placed = new TreeMap<>();
        keep.forEach((rank, node) -> {
            if (alive.contains(node)) {
                placed.put(rank, node);
            }
        });
        List<Integer> toPlace = allLost.keySet().stream().filter(r -> !placed.containsKey(r)).toList();
        Set<String> booked = table.bookedNodes();
        booked.addAll(placed.values());
        Placement.Result result = placement.placeEvery(toPlace, views.inService(), booked);
        if (!result.placed()) {
            stop(job, "no-spare", result.stopReason().orElseThrow());
            return;
        }
        placed.putAll(result.nodeByRank());
        List<String> plan = new ArrayList<>(job.rankNodes());
        placed.forEach(plan::set);
        String id = failureId.isEmpty() ? JobRecord.failureIdOf(allLost) : failureId;
        proposals.propose(new SchedulerUpdate.RestartStarted(SchedulerUpdate.VERSION, job.job(),
                id.isEmpty() ? "restart-" + job.attempt() : id, source, allLost, placed, plan, reason));
    }

    private void stop(JobRecord job, String cause, String reason) {
        proposals.propose(new SchedulerUpdate.JobStopped(SchedulerUpdate.VERSION, job.job(), cause, reason));
    }
}
