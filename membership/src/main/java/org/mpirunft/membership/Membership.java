package org.mpirunft.membership;

import org.mpirunft.membership.internal.MembershipImpl;

/**
 * The group of node daemons: who is alive, decided the same way and in the same order at every
 * member. One instance per daemon.
 *
 * <pre>{@code
 * Membership membership = Membership.create(config, NodeMetadata.compute("node1", 4, control));
 * membership.addListener(event -> scheduler.onMembershipEvent(event));
 * membership.addMessageListener((sender, payload) -> ...);
 * membership.start();                 // joins; the first events list the members found
 * membership.broadcast(bytes);        // to every member, in order per sender
 * ...
 * membership.close();                 // leaves gracefully: the others see NodeLeft
 * }</pre>
 *
 * <p>{@code start}, {@code leave} and {@code close} may be called repeatedly. After
 * {@link #leave()}, {@link #start()} joins again as a new incarnation with a new member id.
 *
 * <p>On {@link MembershipEvent.Expelled} the owner must stop acting for the cluster (the daemon
 * kills its ranks). The service stays connected: when the group can reach it again, JGroups
 * merges it back with the same member id ({@link MembershipEvent.PartitionHealed} on both
 * sides). An owner that prefers a fresh identity calls {@link #leave()} then {@link #start()}.
 */
public interface Membership extends AutoCloseable {

    enum State { NEW, JOINING, JOINED, LEAVING, LEFT, CLOSED }

    static Membership create(MembershipConfig config, NodeMetadata self) {
        return new MembershipImpl(config, self, LoadSource.system(() -> 0));
    }

    static Membership create(MembershipConfig config, NodeMetadata self, LoadSource loadSource) {
        return new MembershipImpl(config, self, loadSource);
    }

    /** Add listeners before {@link #start()} to see the first view's events. */
    void addListener(MembershipListener listener);

    void removeListener(MembershipListener listener);

    /**
     * Joins the group and returns once this member has its first view.
     *
     * @throws JoinRefusedException when the group does not admit this member: it refuses its secret, or
     *                              cannot read its join requests (another secret or encryption setting)
     * @throws JoinFailedException  when the group cannot be joined for another reason
     */
    void start();

    /**
     * Leaves the group gracefully: announces the leave, waits (up to
     * {@link MembershipConfig#leaveTimeout()}) until every member acknowledged it, then
     * disconnects. The others report {@link MembershipEvent.NodeLeft}, not a failure.
     */
    void leave();

    /** Leaves if joined and releases the service's threads. */
    @Override
    void close();

    State state();

    /** The current view; {@link ClusterView#NONE} when not joined. */
    ClusterView view();

    /**
     * How many members the group had since its last join, merge or graceful leave; failures do
     * not lower it. A view that keeps less than half of it leaves this member expelled
     * ({@link MembershipEvent.Expelled.Reason#IN_MINORITY_AFTER_FAILURES}); one that keeps exactly
     * half may be a cut-off member's view that still lists members it has not suspected yet.
     */
    int quorumBase();

    /** The current view as a table for people, see {@link ClusterView#render()}. */
    default String describeView() {
        return view().render();
    }

    /**
     * The group's replicated log, which this member keeps under
     * {@link MembershipConfig#logDirectory()}.
     *
     * @throws IllegalStateException when the config names no log directory
     */
    ReplicatedLog replicatedLog();

    /** This member's metadata. */
    NodeMetadata metadata();

    /** This member's id in the current incarnation, or null when not joined. */
    String memberId();

    /** Samples the load now and publishes it if it changed, instead of waiting for the next period. */
    void publishLoadNow();

    /** Add message listeners before {@link #start()} to see the first messages. */
    void addMessageListener(MessageListener listener);

    void removeMessageListener(MessageListener listener);

    /**
     * Sends {@code payload} to every member of the current view, this one included.
     *
     * <p>Reliable and in order per sender: every member that stays in the group receives the
     * broadcasts of one sender in the order that sender made them (JGroups NAKACK2); there is no
     * order between different senders. A member that joins receives only broadcasts made after
     * it joined. When the sender crashes, a broadcast it made just before may reach some members
     * and not others.
     *
     * @return false when this member is not joined: nothing was sent
     */
    boolean broadcast(byte[] payload);

    /**
     * Sends {@code payload} to the member named {@code node} (this one included), reliably and in
     * order among this member's sends to it (JGroups UNICAST3). Sends and broadcasts are not
     * ordered with each other.
     *
     * @return false when this member is not joined or no member of the current view has that name
     */
    boolean send(String node, byte[] payload);
}
