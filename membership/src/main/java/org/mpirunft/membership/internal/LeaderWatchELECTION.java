package org.mpirunft.membership.internal;

import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.annotations.MBean;
import org.jgroups.annotations.ManagedAttribute;
import org.jgroups.annotations.Property;
import org.jgroups.conf.AttributeType;
import org.jgroups.protocols.raft.ELECTION;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.raft.util.Utils;

/**
 * jgroups-raft's ELECTION, in which a member that has had no leader for
 * {@code leaderless_timeout} while a majority of the voters it knows is in its view starts a
 * voting round itself.
 *
 * <p>Why: ELECTION runs a vote only on a view change, from the view's coordinator. A member whose
 * term is above the leader's drops every message of the leader (RAFT drops a message of an older
 * term without an answer, so the leader never learns of the higher term) and names no leader
 * until the next view change that makes the coordinator vote. A member gets such a term when it
 * was cut off as the coordinator of a view that still counted enough members: it votes round
 * after round, each in a new term, and nobody answers. On the simulated cluster a daemon named
 * no leader for 120 s after a cut was healed, and could hand the scheduler no request
 * (scripts/chaos, seeds 101 and 102; its term was not recorded then). A term above the leader's
 * is the way there this closes; a member with no leader for any other reason gets one this way too.
 *
 * <p>The round is ELECTION's own: a term above every term the member has seen, the votes of a
 * majority of the voters, the one with the most complete log elected (the leader it replaces,
 * usually), and the notice of it sent to all. A voter votes once per term, so this round and a
 * coordinator's cannot both elect. A member on the minority side of a partition has no majority
 * of the voters in its view and never starts one, which is what keeps it from raising its term
 * in the first place. The protocol id is ELECTION's, so members with and without it understand
 * each other.
 */
@MBean(description = "ELECTION in which a member with no leader and a majority of the voters in view starts a vote")
public class LeaderWatchELECTION extends ELECTION {
    @Property(description = "How long a member may have no leader, with a majority of the voters it knows in its view, "
            + "before it starts a voting round itself (ms); 0: never", type = AttributeType.TIME)
    protected long leaderless_timeout = 5000;

    private Future<?> watch;
    /** Since when this member has had no leader with a majority in view; 0 while it has one. Only the watch's thread uses it. */
    private long leaderlessSinceNanos;
    private volatile long roundsStarted;

    public LeaderWatchELECTION() {
        setId(ELECTION_ID);
    }

    public long getLeaderlessTimeout() {
        return leaderless_timeout;
    }

    public LeaderWatchELECTION setLeaderlessTimeout(long millis) {
        this.leaderless_timeout = millis;
        return this;
    }

    @ManagedAttribute(description = "Voting rounds this member started because it had no leader", type = AttributeType.SCALAR)
    public long getRoundsStarted() {
        return roundsStarted;
    }

    @Override
    public void start() throws Exception {
        super.start();
        if (leaderless_timeout > 0) {
            long period = Math.max(100, leaderless_timeout / 5);
            watch = getTransport().getTimer().scheduleWithFixedDelay(this::check, period, period, TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void stop() {
        Future<?> w = watch;
        if (w != null) {
            w.cancel(false);
        }
        super.stop();
    }

    private void check() {
        RAFT r = raft();
        View v = view;
        if (r == null || v == null || r.leader() != null || isVotingThreadRunning() || !votersMajorityIn(v, r)) {
            leaderlessSinceNanos = 0;
            return;
        }
        long now = System.nanoTime();
        if (leaderlessSinceNanos == 0) {
            leaderlessSinceNanos = now;
        } else if (now - leaderlessSinceNanos >= TimeUnit.MILLISECONDS.toNanos(leaderless_timeout)) {
            leaderlessSinceNanos = 0;
            roundsStarted++;
            log.info("%s: no leader for %d ms with a majority of the voters in view %s; starting a voting round (term %d)",
                    local_addr, leaderless_timeout, v.getViewId(), r.currentTerm());
            startVotingThread();
        }
    }

    /** Whether a majority of the voters this member knows is in {@code v} (ELECTION itself counts the view's size). */
    private static boolean votersMajorityIn(View v, RAFT r) {
        List<String> voters = r.members();
        long present = v.getMembers().stream().map(Address.class::cast).map(Utils::extractRaftId)
                .filter(id -> id != null && voters.contains(id)).count();
        return present >= r.majority();
    }
}
