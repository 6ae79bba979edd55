package org.mpirunft.membership.internal;

import org.jgroups.Address;
import org.jgroups.Message;
import org.jgroups.ObjectMessage;
import org.jgroups.protocols.raft.AppendEntriesRequest;
import org.jgroups.protocols.raft.AppendEntriesResponse;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.RaftHeader;
import org.jgroups.raft.util.CommitTable;

/**
 * jgroups-raft's RAFT, whose leader tells a follower that entries it holds are committed as soon
 * as they are, instead of after its queue was idle for {@code resend_interval}.
 *
 * <p>Why: RAFT tells followers the commit index with the next AppendEntries, or with the resend
 * it runs once no request came for {@code resend_interval}. A chain of decisions in which each
 * waits for a follower's daemon to apply the last (a checkpoint's staggered flush: a node's turn,
 * its ranks' write, the next turn) then pays at least that interval at every step, and more
 * while other traffic keeps the queue from going idle: on the simulated cluster a job's
 * checkpoints fell seconds behind its program. RAFT's own {@code send_commits_immediately} is no
 * cure: it sends the notice to every follower at every acknowledgement, to followers that lack
 * the entries too, whose answers trigger it again (the queue filled up and followers stopped
 * catching up in ReplicatedLogIT).
 *
 * <p>What this adds is the notice RAFT's resend sends (an empty AppendEntries with the commit
 * index), to the same followers (those whose acknowledged entries reach the commit index),
 * sent when the commit index moves and when such a follower acknowledges an entry already
 * committed. A follower behind still gets its entries from RAFT's resend. Runs on RAFT's own
 * thread, as the code it extends; the protocol id is RAFT's, so members with and without it
 * understand each other.
 */
public class PromptCommitRAFT extends RAFT {
    public PromptCommitRAFT() {
        setId(RAFT_ID);
    }

    @Override
    protected RAFT commitLogTo(long indexInclusive, boolean serializeResponse) {
        long before = commit_index;
        RAFT result = super.commitLogTo(indexInclusive, serializeResponse);
        CommitTable table = commit_table;
        if (commit_index > before && table != null && isLeader()) {
            table.forEach(this::noticeIfHeld);
        }
        return result;
    }

    @Override
    public void handleUpRequest(Message msg, RaftHeader hdr) {
        long before = commit_index;
        super.handleUpRequest(msg, hdr);
        CommitTable table = commit_table;
        // An acknowledgement that moved the commit index was answered in commitLogTo.
        if (hdr instanceof AppendEntriesResponse && commit_index == before && table != null && isLeader()) {
            CommitTable.Entry entry = table.get(msg.getSrc());
            if (entry != null) {
                noticeIfHeld(msg.getSrc(), entry);
            }
        }
    }

    /** The commit notice, to a follower that acknowledged every committed entry and was not told yet. */
    private void noticeIfHeld(Address member, CommitTable.Entry entry) {
        long committed = commit_index;
        if (entry.matchIndex() >= committed && entry.commitIndex() < committed) {
            long term = currentTerm();
            Message notice = new ObjectMessage(member, null)
                    .putHeader(id, new AppendEntriesRequest(getAddress(), term, 0, 0, term, committed));
            down_prot.down(notice);
        }
    }
}
