package org.mpirunft.scheduler;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.logging.Logger;
import org.mpirunft.membership.Member;
import org.mpirunft.scheduler.policy.Placement;

/**
 * The leader's decisions to move a pause job's ranks off a node to spares, with nobody rolling
 * back: asked by the operator ({@code mpirun-ft migrate}), or for a drained node at each tick;
 * and the move given up when its spare is lost before the ranks moved. A failure during a move
 * is {@link RecoveryDecisions}'s: the pause drops the move.
 *
 * <p>Not thread-safe: the {@link SchedulerCore}'s lock guards it.
 */
final class Migrations {
    /** The core's logger: operators and benchmarks set the scheduler's log level by its name. */
    private static final Logger LOG = Logger.getLogger(SchedulerCore.class.getName());

    private final String self;
    private final JobTable table;
    private final Placement placement;
    private final PlacementView views;
    private final Proposals proposals;
    /** Drained nodes the leader warned it cannot move a job off, as {@code job/node}: warned once. */
    private final Set<String> unmovable = new HashSet<>();

    Migrations(String self, JobTable table, Placement placement, PlacementView views, Proposals proposals) {
        this.self = self;
        this.table = table;
        this.placement = placement;
        this.views = views;
        this.proposals = proposals;
    }

    /** See {@link SchedulerCore#migrationRequested}; this daemon leads. */
    void requested(String job, String node, String reason) {
        table.job(job).filter(j -> j.state() == JobState.RUNNING && !proposals.inFlight(j.job()))
                .ifPresent(j -> migrate(j, node, "operator", reason));
    }

    /** See {@link SchedulerCore#migrationRefusal}. */
    Optional<String> refusal(String job, String node) {
        Optional<JobRecord> found = table.job(job);
        if (found.isEmpty()) {
            return Optional.of("no job '" + job + "' is known to the scheduler");
        }
        JobRecord j = found.get();
        if (!j.state().isLive()) {
            return Optional.of("job '" + job + "' was stopped");
        }
        if (j.mode() != RecoveryMode.PAUSE) {
            return Optional.of("job '" + job + "' recovers by " + j.mode().word() + "; only a job in pause mode can migrate ranks");
        }
        if (ranksOn(j, node).isEmpty()) {
            return Optional.of("job '" + job + "' has no rank on node '" + node + "' (its ranks run on " + new TreeSet<>(j.rankNodes())
                    + ")");
        }
        if (ranksOn(j, node).size() == j.rankNodes().size()) {
            return Optional.of("every rank of job '" + job + "' runs on node '" + node + "'; a migration needs a rank that stays");
        }
        Placement.Result result = placement.placeEvery(ranksOn(j, node), views.inAllocation(j), table.bookedNodes());
        return result.placed() ? Optional.empty() : result.stopReason().map(r -> "cannot move the ranks of job '" + job + "' off '"
                + node + "': " + r.substring(0, r.indexOf(';') < 0 ? r.length() : r.indexOf(';')));
    }

    /**
     * Moves the job's ranks off the first drained node that has some (the nodes' daemons report
     * their drain with their load); true if a migration was proposed.
     */
    boolean offDrained(JobRecord job) {
        if (job.mode() != RecoveryMode.PAUSE || proposals.inFlight(job.job())) {
            return false;
        }
        for (Member member : views.membersNow()) {
            if (member.load().isDrained() && !ranksOn(job, member.name()).isEmpty()) {
                if (migrate(job, member.name(), "drain", member.load().drain())) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * A spare chosen for the job's migration was lost before the ranks moved: they stay where
     * they are, and a drained node's ranks get another spare at the next tick.
     */
    void spareLost(JobRecord job, String spare) {
        proposals.propose(new SchedulerUpdate.MigrationAbandoned(SchedulerUpdate.VERSION, job.job(),
                job.migration().orElseThrow().seq(), "spare " + spare + " was lost before the ranks moved"));
    }

    /** Proposes moving the job's ranks on {@code node} to spares; false if none can go (said once per job and node). */
    private boolean migrate(JobRecord job, String node, String source, String reason) {
        List<Integer> moving = ranksOn(job, node);
        if (moving.isEmpty() || moving.size() == job.rankNodes().size() || job.programFinished()) {
            return false;
        }
        Placement.Result result = placement.placeEvery(moving, views.inAllocation(job), table.bookedNodes());
        if (!result.placed()) {
            if (unmovable.add(job.job() + "/" + node)) {
                LOG.warning(() -> self + ": job " + job.job() + ": cannot move its ranks " + moving + " off " + node + " (" + reason
                        + "): " + result.stopReason().orElseThrow().replace("; the job stops and keeps its checkpoints", "")
                        + "; they stay there");
            }
            return false;
        }
        unmovable.remove(job.job() + "/" + node);
        Map<Integer, String> from = new TreeMap<>();
        moving.forEach(rank -> from.put(rank, node));
        proposals.propose(new SchedulerUpdate.MigrationStarted(SchedulerUpdate.VERSION, job.job(), job.migrations() + 1, source, reason,
                from, result.nodeByRank()));
        return true;
    }

    private static List<Integer> ranksOn(JobRecord job, String node) {
        List<Integer> ranks = new ArrayList<>();
        for (int rank = 0; rank < job.rankNodes().size(); rank++) {
            if (job.rankNodes().get(rank).equals(node)) {
                ranks.add(rank);
            }
        }
        return ranks;
    }
}
