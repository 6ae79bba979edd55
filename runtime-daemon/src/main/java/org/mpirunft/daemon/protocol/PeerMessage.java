package org.mpirunft.daemon.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;
import org.mpirunft.common.JobOwner;

/**
 * Daemon-to-daemon requests over TCP on the cluster network. The connection opens with the
 * server's {@link Challenge} (its fresh nonce); the client answers with one {@link Signed}
 * request carrying a fresh nonce of its own, whose MAC (HMAC-SHA256 over both nonces and the
 * request's JSON, keyed from the cluster secret) proves it holds the secret; the server answers
 * with one {@link SignedReply}, whose MAC over both nonces and the reply's JSON proves the same
 * of the server. A request the server cannot take at all (not JSON, another protocol version)
 * gets a plain {@link ControlReply.Failed}, which a client of this version refuses as unsigned
 * and one of an older version prints.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = PeerMessage.Challenge.class, name = "challenge"),
        @JsonSubTypes.Type(value = PeerMessage.Signed.class, name = "signed"),
        @JsonSubTypes.Type(value = PeerMessage.SignedReply.class, name = "signed-reply"),
        @JsonSubTypes.Type(value = PeerMessage.StartNodeDaemon.class, name = "start-node-daemon"),
        @JsonSubTypes.Type(value = PeerMessage.KillJobProcesses.class, name = "kill-job-processes"),
        @JsonSubTypes.Type(value = PeerMessage.RestartDaemon.class, name = "restart-daemon"),
        @JsonSubTypes.Type(value = PeerMessage.DrainNode.class, name = "drain-node"),
        @JsonSubTypes.Type(value = PeerMessage.TransparentStep.class, name = "transparent-step"),
        @JsonSubTypes.Type(value = PeerMessage.CallSpares.class, name = "call-spares")})
public sealed interface PeerMessage {
    /** 3: the client's nonce in {@link Signed}, and {@link SignedReply}. 4: {@link CallSpares}. */
    int VERSION = 4;

    int version();

    record Challenge(int version, String node, String nonce) implements PeerMessage {
    }

    /**
     * {@code request} is the JSON of a request, kept as text so the MAC covers its exact bytes;
     * {@code nonce} is the client's, which the reply's MAC must cover.
     */
    record Signed(int version, String from, String nonce, String request, String mac) implements PeerMessage {
    }

    /** {@code reply} is the JSON of a {@link ControlReply}, kept as text so the MAC covers its exact bytes. */
    record SignedReply(int version, String node, String reply, String mac) implements PeerMessage {
    }

    /**
     * Start Open MPI's node daemon, worded as PRRTE's ssh launcher words it, as {@code owner}: the
     * job's owner, or the user who ran the launch agent when no job is named (absent from an
     * older daemon: root, the only user that could launch then), as a step of Slurm allocation
     * {@code slurmJob} when not empty (left out when empty: a daemon of an earlier version, which
     * refuses unknown fields, still reads the launch during a rolling upgrade).
     */
    record StartNodeDaemon(int version, String job, List<String> command, JobOwner owner,
                           @JsonInclude(JsonInclude.Include.NON_EMPTY)
                           String slurmJob) implements PeerMessage {
        public StartNodeDaemon {
            owner = owner == null ? JobOwner.ROOT : owner;
            slurmJob = slurmJob == null ? "" : slurmJob;
        }
    }

    /** Kill the job's processes on the node; every job's when {@code job} is empty. */
    record KillJobProcesses(int version, String job) implements PeerMessage {
    }

    /** Leave the group and start a new daemon in this one's place. */
    record RestartDaemon(int version) implements PeerMessage {
    }

    /**
     * Give {@code call} to the warm spares it names on this node (over their rank channels): the
     * recovery's rendezvous travels daemon to daemon, not through PRRTE's data server.
     */
    record CallSpares(int version, org.mpirunft.common.rank.RankMessage.SpareCall call) implements PeerMessage {
    }

    /** Drain this node for {@code reason}, or put it back in service when {@code resume}. */
    record DrainNode(int version, String reason, boolean resume) implements PeerMessage {
    }

    /**
     * One step of a transparent job's checkpoint or restore on this node, ordered by the daemon of
     * the job's launcher node, which runs every step on every node of the job before the next
     * (TransparentCoordinator). Answered by {@link ControlReply.StepDone}.
     *
     * @param epoch   the epoch dumped, staged or restored; for PRUNE the first one kept (0 for the other steps)
     * @param network the job network (CIDR): the lock drops its traffic
     * @param storage the root-only directory on shared storage that holds every transparent job's
     *                epochs: this job's go to {@code storage/USER/JOB/epoch-N}
     * @param part    for RESTORE, the part of the epoch to restore here: this node's own, or a lost
     *                node's, whose floating address and host name this node takes first
     * @param owner   the job's owner: the node-local files go into and come out of the images with
     *                the owner's rights, and a restored tree must run as the owner; absent (a
     *                daemon from before jobs had owners), root, whose jobs alone were transparent then
     */
    record TransparentStep(int version, String job, Step step, long epoch, String network, String storage, TransparentPart part,
                           JobOwner owner) implements PeerMessage {
        public TransparentStep {
            owner = owner == null ? JobOwner.ROOT : owner;
        }
    }

    enum Step {
        /** Drop the job network's traffic here, and the job's own loopback connections: no packet may cross while nodes are dumped or restored. */
        LOCK,
        /** Dump this node's part of the job's process tree to node-local storage, leaving it running. */
        DUMP,
        /** Let the traffic through again. */
        UNLOCK,
        /** Copy the dumped epoch to shared storage, with a checksum of every file. */
        STAGE,
        /** Kill this node's part of the job, leaving no socket behind that would stand in a restored one's way. */
        STOP,
        /** Restore a part of the epoch here. */
        RESTORE,
        /**
         * Delete this node's images of the job's epochs before the step's epoch, the committed
         * one; {@link Long#MAX_VALUE} once the job is over.
         */
        PRUNE
    }

    /**
     * One node's part of a transparent epoch, as the epoch's manifest lists it.
     *
     * @param node     the node it was dumped on
     * @param hostname the host name its processes saw
     * @param address  its floating address on the job network (CIDR), which a spare takes over
     * @param root     the PID of the part's root process (Open MPI's node daemon, or mpirun)
     * @param bytes    the images' size
     * @param sha256   every image file's SHA-256, by file name
     * @param ids      every process and thread ID of the part: CRIU restores them as they were, so
     *                 they must be free where it is restored
     * @param dumpMillis how long CRIU's dump of the part took (the part's processes frozen)
     * @param endpoints the local TCP endpoints of the part's sockets ({@code 127.0.0.1:42665}): a
     *                 socket left on one (the kill's, or Open MPI's own abort's, in TIME_WAIT)
     *                 is dropped before the restore binds it again
     */
    record TransparentPart(String node, String hostname, String address, long root, long bytes, Map<String, String> sha256,
                           List<Long> ids, double dumpMillis, List<String> endpoints) {
        public TransparentPart {
            sha256 = Map.copyOf(sha256);
            ids = ids == null ? List.of() : List.copyOf(ids);
            endpoints = endpoints == null ? List.of() : List.copyOf(endpoints);
        }
    }
}
