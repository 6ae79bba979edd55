package org.mpirunft.membership;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The group's replicated log (Raft, by jgroups-raft): entries that a majority of the voting
 * members stored, applied in one order at every member. A small set of members votes
 * ({@link MembershipConfig#voterCount()}); every other member follows the log as a learner and
 * applies the same entries. The leader replaces a voter that left the view by a member that is
 * in it, one change at a time.
 *
 * <p>What it guarantees, and what the owner must do for it:
 * <ul>
 *   <li>{@link Machine#apply} sees only committed entries, in log order, at every member. Act only
 *       from there: a leader cut off with a minority still believes it leads until its view shows
 *       the loss (a few seconds), but nothing it appends in that time is ever applied.</li>
 *   <li>A new leader's state holds everything an earlier leader committed only once it has
 *       applied an entry of its own term: append one ({@link #append}) when
 *       {@link #addLeadershipListener leadership} comes, and lead from its apply.</li>
 *   <li>The log is kept under {@link MembershipConfig#logDirectory()} and replayed into the
 *       machine when the member joins: {@link Machine#reset} comes first, then
 *       {@link Machine#install} of the last snapshot, if any, then the entries. Entries replayed
 *       before the join carry {@code replayed = true}.</li>
 * </ul>
 */
public interface ReplicatedLog {

    /** The owner's state, rebuilt from the log. Called on one thread at a time, never concurrently. */
    interface Machine {
        /** Forget everything: the log is about to be replayed from its start. */
        void reset();

        /**
         * One committed entry.
         *
         * @param replayed the entry was read back from this member's own log as it joined, not
         *                 received: it was acted on before, by this member or by the group
         */
        void apply(byte[] entry, boolean replayed);

        /** The whole state, so that the log before it can be dropped; the bytes are given back to {@link #install}. */
        byte[] snapshot();

        /** Replaces the state by a snapshot (from this member's disk or from the leader). */
        void install(byte[] snapshot);
    }

    /**
     * Sets the machine; before {@link Membership#start()}, since joining replays the log into it.
     *
     * @throws IllegalStateException when a machine is set already or the member has started
     */
    void attach(Machine machine);

    /**
     * Appends {@code entry} as the leader. The future completes once a majority of the voters
     * stored it and this member applied it; it fails when this member is not the leader, or stops
     * being it before the entry commits (the entry may still commit under the next leader, or be
     * dropped: the owner finds out from what it applies).
     */
    CompletableFuture<Void> append(byte[] entry);

    /** Whether this member is the log's leader now; it may be cut off and not know it yet (see above). */
    boolean isLeader();

    /** The current leader's node name, as this member knows it; empty during an election. */
    Optional<String> leader();

    /** The leader's term as this member knows it. */
    long term();

    /** The voters' ids (group addresses, {@code host:port}) as this member's log has them. */
    List<String> voters();

    /** Called with true when this member becomes the leader and false when it stops being it; on the log's thread. */
    void addLeadershipListener(Consumer<Boolean> listener);
}
