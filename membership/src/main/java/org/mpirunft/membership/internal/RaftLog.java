package org.mpirunft.membership.internal;

import java.io.DataInput;
import java.io.DataOutput;
import java.lang.System.Logger.Level;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.protocols.raft.RAFT;
import org.jgroups.protocols.raft.Role;
import org.jgroups.raft.Options;
import org.jgroups.raft.StateMachine;
import org.jgroups.util.ExtendedUUID;
import org.jgroups.util.Util;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.ReplicatedLog;

/**
 * The {@link ReplicatedLog} on jgroups-raft's RAFT protocol in the member's stack, and the
 * upkeep of its voters.
 *
 * <p><b>Voters.</b> jgroups-raft never replaces a voter by itself. The leader does it here, on
 * every view and on a timer: first it removes a voter that is not in its view (the failure
 * detector's verdict, or a leave), then it adds members of the view, oldest first, until the set
 * has {@link MembershipConfig#voterCount()} voters. One change at a time, each an entry a
 * majority of the current set commits, so a leader cut off with a minority can change nothing;
 * the next change follows as soon as one commits.
 * Removing first keeps the majority reachable: with 5 voters split 2 against 3, the 3 side's
 * leader removes the 2 it cannot reach, and can then lose one more and still commit.
 */
final class RaftLog implements ReplicatedLog {
    private static final System.Logger LOG = System.getLogger("org.mpirunft.membership");

    private final String name;
    private final int voterCount;
    private final List<Consumer<Boolean>> listeners = new CopyOnWriteArrayList<>();
    private volatile Machine machine;
    private volatile RAFT raft;
    /** The thread that joins: RAFT replays the member's own log on it, before any entry is received. */
    private volatile Thread joiningThread;
    private volatile boolean leading;
    /** Runs a task on the membership's thread: the next voter change, once one completed. */
    private final Consumer<Runnable> membershipThread;
    /** The voter change under way, if any: one at a time. */
    private CompletableFuture<byte[]> change = CompletableFuture.completedFuture(null);
    /** The newest view upkeep saw. */
    private View lastView;
    /** Node names of the log ids seen in views, for people reading the log lines. */
    private final java.util.Map<String, String> names = new java.util.concurrent.ConcurrentHashMap<>();

    RaftLog(String name, MembershipConfig config, Consumer<Runnable> membershipThread) {
        this.name = name;
        this.voterCount = config.voterCount();
        this.membershipThread = membershipThread;
    }

    @Override
    public synchronized void attach(Machine machine) {
        if (this.machine != null) {
            throw new IllegalStateException(name + ": the replicated log has a machine already");
        }
        if (raft != null) {
            throw new IllegalStateException(name + ": attach the machine before the member joins; joining replays the log into it");
        }
        this.machine = machine;
    }

    /** Takes the RAFT protocol of a channel about to connect on this thread; the machine is reset for the replay. */
    void bind(RAFT protocol) {
        Machine m = machine;
        if (m != null) {
            m.reset();
        }
        joiningThread = Thread.currentThread();
        protocol.stateMachine(new Adapter());
        protocol.addRoleListener(this::roleChanged);
        raft = protocol;
    }

    /** The member joined (or gave up joining): entries from now on were received, not replayed. */
    void joined() {
        joiningThread = null;
    }

    /** The channel closed: no leader here any more. */
    void unbind() {
        raft = null;
        joiningThread = null;
        synchronized (this) {
            lastView = null; // the next channel's views number afresh
            change = CompletableFuture.completedFuture(null);
        }
        if (leading) {
            leading = false;
            listeners.forEach(l -> l.accept(false));
        }
    }

    private void roleChanged(Role role) {
        boolean now = role == Role.Leader;
        if (now != leading) {
            leading = now;
            LOG.log(Level.INFO, () -> name + ": " + (now ? "leads" : "no longer leads") + " the replicated log, term "
                    + Optional.ofNullable(raft).map(RAFT::currentTerm).orElse(0L) + ", voters " + voters().stream().map(this::named).toList());
            // Not here: RAFT calls this holding its state's lock, and a listener that waits for a
            // lock of its own, held by a thread asking RAFT who leads, would never get it (a
            // daemon deadlocked so in scripts/chaos, seed 501, job 14). The membership's thread
            // tells them, in the order the changes came.
            membershipThread.accept(() -> listeners.forEach(l -> l.accept(now)));
            if (now) {
                membershipThread.accept(this::upkeepAgain); // voters the last leader did not replace yet
            }
        }
    }

    /** {@link #upkeep} on the newest view it saw. */
    private void upkeepAgain() {
        upkeep(null);
    }

    @Override
    public CompletableFuture<Void> append(byte[] entry) {
        RAFT r = raft;
        if (r == null || !r.isLeader()) {
            return CompletableFuture.failedFuture(new IllegalStateException(name + " is not the replicated log's leader"));
        }
        try {
            return r.setAsync(entry, 0, entry.length, Options.create(true)).thenApply(ignored -> null);
        } catch (Exception e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    @Override
    public boolean isLeader() {
        RAFT r = raft;
        return r != null && r.isLeader();
    }

    @Override
    public Optional<String> leader() {
        RAFT r = raft;
        Address leader = r == null ? null : r.leader();
        return leader == null ? Optional.empty() : nameOf(leader);
    }

    @Override
    public long term() {
        RAFT r = raft;
        return r == null ? 0 : r.currentTerm();
    }

    @Override
    public List<String> voters() {
        RAFT r = raft;
        if (r == null) {
            return List.of();
        }
        // RAFT changes its list on its own thread without a lock; a copy taken meanwhile may fail: take another.
        for (int attempt = 0; ; attempt++) {
            try {
                return List.copyOf(r.members());
            } catch (java.util.ConcurrentModificationException e) {
                if (attempt == 2) {
                    return List.of();
                }
            }
        }
    }

    @Override
    public void addLeadershipListener(Consumer<Boolean> listener) {
        listeners.add(listener);
    }

    /**
     * As the leader, makes one voter change if one is due in {@code view}: a voter gone from it
     * is removed, else a member of it is added while the set is short. Called on every view and
     * on a timer, on the membership's thread.
     */
    synchronized void upkeep(View view) {
        if (view != null && (lastView == null || view.getViewId().compareToIDs(lastView.getViewId()) >= 0)) {
            lastView = view;
        }
        view = lastView;
        if (view == null) {
            return;
        }
        Set<String> present = new LinkedHashSet<>();
        for (Address member : view.getMembers()) {
            idOf(member).ifPresent(id -> {
                present.add(id);
                nameOf(member).ifPresent(n -> names.put(id, n));
            });
        }
        RAFT r = raft;
        if (r == null || !r.isLeader() || !change.isDone()) {
            return;
        }
        List<String> voters = voters();
        if (voters.isEmpty()) {
            return; // the list could not be read now (see voters()); the timer comes back
        }
        Optional<String> gone = voters.stream().filter(v -> !present.contains(v)).findFirst();
        try {
            if (gone.isPresent()) {
                change = r.removeServer(gone.get());
                logChange(change, "removed voter " + named(gone.get()) + " (not in view " + view.getViewId().getId() + ")");
            } else if (voters.size() < voterCount) {
                Optional<String> next = present.stream().filter(id -> !voters.contains(id)).findFirst();
                if (next.isPresent()) {
                    change = r.addServer(next.get());
                    logChange(change, "added voter " + named(next.get()));
                }
            }
        } catch (Exception e) {
            LOG.log(Level.DEBUG, () -> name + ": voter change refused: " + e);
        }
    }

    /**
     * Logs the change's outcome and makes the next one at once: after a partition the majority's
     * leader must remove every voter it cannot reach before it loses one more member.
     */
    private void logChange(CompletableFuture<byte[]> future, String what) {
        future.whenComplete((ok, failure) -> {
            if (failure == null) {
                LOG.log(Level.INFO, () -> name + ": " + what + "; voters " + voters().stream().map(this::named).toList());
                membershipThread.accept(this::upkeepAgain); // a refused change waits for the timer instead
            } else {
                LOG.log(Level.INFO, () -> name + ": not " + what + ": " + failure.getMessage());
            }
        });
    }

    /** {@code id (node)}, or the id alone for a member never seen in a view. */
    private String named(String id) {
        String node = names.get(id);
        return node == null ? id : id + " (" + node + ")";
    }

    /** The node name in a member's address; empty for an address without our metadata, no member of this group. */
    private static Optional<String> nameOf(Address address) {
        try {
            return Optional.of(MetadataCodec.metadataOf(address).name());
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    static Optional<String> idOf(Address address) {
        if (address instanceof ExtendedUUID uuid) {
            byte[] id = uuid.get(RAFT.raft_id_key);
            if (id != null) {
                return Optional.of(Util.bytesToString(id));
            }
        }
        return Optional.empty();
    }

    /** RAFT's state machine: the owner's {@link Machine}, fed raw bytes. */
    private final class Adapter implements StateMachine {
        @Override
        public byte[] apply(byte[] data, int offset, int length, boolean serializeResponse) {
            Machine m = machine;
            if (m != null) {
                byte[] entry = new byte[length];
                System.arraycopy(data, offset, entry, 0, length);
                m.apply(entry, Thread.currentThread() == joiningThread);
            }
            return null;
        }

        @Override
        public void readContentFrom(DataInput in) throws Exception {
            byte[] snapshot = new byte[in.readInt()];
            in.readFully(snapshot);
            Machine m = machine;
            if (m != null) {
                m.install(snapshot);
            }
        }

        @Override
        public void writeContentTo(DataOutput out) throws Exception {
            Machine m = machine;
            byte[] snapshot = m == null ? new byte[0] : m.snapshot();
            out.writeInt(snapshot.length);
            out.write(snapshot);
        }
    }
}
