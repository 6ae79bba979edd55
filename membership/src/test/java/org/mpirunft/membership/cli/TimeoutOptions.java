package org.mpirunft.membership.cli;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.mpirunft.membership.MembershipConfig;
import picocli.CommandLine.Option;

/**
 * The membership's timeouts as command-line options, each replacing its profile's value: one
 * definition for every test-side command that starts members ({@code member}, the scale
 * benchmark), as a picocli mixin. Durations take common's forms ({@code 500ms}, {@code 2s}, {@code PT2S}).
 */
public final class TimeoutOptions {
    @Option(names = "--heartbeat-interval", converter = DurationConverter.class, description = "FD_ALL's interval (e.g. 2s)")
    Duration heartbeatInterval;

    @Option(names = "--heartbeat-timeout", converter = DurationConverter.class, description = "FD_ALL's timeout (e.g. 12s)")
    Duration heartbeatTimeout;

    @Option(names = "--verify-timeout", converter = DurationConverter.class, description = "VERIFY_SUSPECT2's timeout (e.g. 1s)")
    Duration verifyTimeout;

    @Option(names = "--merge-min-interval", converter = DurationConverter.class, description = "MERGE3's min interval (e.g. 10s)")
    Duration mergeMinInterval;

    @Option(names = "--merge-max-interval", converter = DurationConverter.class, description = "MERGE3's max interval (e.g. 30s)")
    Duration mergeMaxInterval;

    @Option(names = "--join-timeout", converter = DurationConverter.class, description = "GMS's join timeout (e.g. 20s)")
    Duration joinTimeout;

    @Option(names = "--leave-timeout", converter = DurationConverter.class, description = "GMS's leave timeout")
    Duration leaveTimeout;

    @Option(names = "--load-report-interval", converter = DurationConverter.class, description = "how often a member reports its load")
    Duration loadReportInterval;

    @Option(names = "--connect-timeout", converter = DurationConverter.class, description = "FD_SOCK2's connection timeout (e.g. 10s)")
    Duration connectTimeout;

    @Option(names = "--retransmit-interval", converter = DurationConverter.class,
            description = "NAKACK2's and UNICAST3's retransmission interval (e.g. 2s)")
    Duration retransmitInterval;

    /** The options given, applied to {@code config}; the others keep the profile's values. */
    public MembershipConfig.Builder applyTo(MembershipConfig.Builder config) {
        if (heartbeatInterval != null) {
            config.heartbeatInterval(heartbeatInterval);
        }
        if (heartbeatTimeout != null) {
            config.heartbeatTimeout(heartbeatTimeout);
        }
        if (verifyTimeout != null) {
            config.verifyTimeout(verifyTimeout);
        }
        if (mergeMinInterval != null) {
            config.mergeMinInterval(mergeMinInterval);
        }
        if (mergeMaxInterval != null) {
            config.mergeMaxInterval(mergeMaxInterval);
        }
        if (joinTimeout != null) {
            config.joinTimeout(joinTimeout);
        }
        if (leaveTimeout != null) {
            config.leaveTimeout(leaveTimeout);
        }
        if (loadReportInterval != null) {
            config.loadReportInterval(loadReportInterval);
        }
        if (connectTimeout != null) {
            config.connectTimeout(connectTimeout);
        }
        if (retransmitInterval != null) {
            config.retransmitInterval(retransmitInterval);
        }
        return config;
    }

    /** The options given, as {@code --name value} pairs, for a report's header. */
    public String describe() {
        List<String> given = new ArrayList<>();
        add(given, "--heartbeat-interval", heartbeatInterval);
        add(given, "--heartbeat-timeout", heartbeatTimeout);
        add(given, "--verify-timeout", verifyTimeout);
        add(given, "--merge-min-interval", mergeMinInterval);
        add(given, "--merge-max-interval", mergeMaxInterval);
        add(given, "--join-timeout", joinTimeout);
        add(given, "--leave-timeout", leaveTimeout);
        add(given, "--load-report-interval", loadReportInterval);
        add(given, "--connect-timeout", connectTimeout);
        add(given, "--retransmit-interval", retransmitInterval);
        return String.join(" ", given);
    }

    private static void add(List<String> given, String option, Duration value) {
        if (value != null) {
            given.add(option + " " + org.mpirunft.common.Durations.format(value));
        }
    }
}
