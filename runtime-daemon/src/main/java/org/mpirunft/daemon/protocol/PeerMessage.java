package org.mpirunft.daemon.protocol;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;

/**
 * Daemon-to-daemon requests over TCP on the cluster network. The connection opens with the
 * server's {@link Challenge}; the client answers with one {@link Signed} request, whose MAC
 * (HMAC-SHA256 over the nonce and the request's JSON, keyed from the cluster secret) proves it
 * holds the secret; the server replies with one {@link ControlReply}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = PeerMessage.Challenge.class, name = "challenge"),
        @JsonSubTypes.Type(value = PeerMessage.Signed.class, name = "signed"),
        @JsonSubTypes.Type(value = PeerMessage.StartNodeDaemon.class, name = "start-node-daemon"),
        @JsonSubTypes.Type(value = PeerMessage.KillJobProcesses.class, name = "kill-job-processes"),
        @JsonSubTypes.Type(value = PeerMessage.RestartDaemon.class, name = "restart-daemon"),
        @JsonSubTypes.Type(value = PeerMessage.DrainNode.class, name = "drain-node")})
public sealed interface PeerMessage {
    int VERSION = 2;

    int version();

    record Challenge(int version, String node, String nonce) implements PeerMessage {
    }

    /** {@code request} is the JSON of a request, kept as text so the MAC covers its exact bytes. */
    record Signed(int version, String from, String request, String mac) implements PeerMessage {
    }

    /** Start Open MPI's node daemon, worded as PRRTE's ssh launcher words it. */
    record StartNodeDaemon(int version, String job, List<String> command) implements PeerMessage {
    }

    /** Kill the job's processes on the node; every job's when {@code job} is empty. */
    record KillJobProcesses(int version, String job) implements PeerMessage {
    }

    /** Leave the group and start a new daemon in this one's place. */
    record RestartDaemon(int version) implements PeerMessage {
    }

    /** Drain this node for {@code reason}, or put it back in service when {@code resume}. */
    record DrainNode(int version, String reason, boolean resume) implements PeerMessage {
    }
}
