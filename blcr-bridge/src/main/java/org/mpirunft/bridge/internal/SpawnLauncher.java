package org.mpirunft.bridge.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.mpirunft.bridge.BridgeException;
import org.mpirunft.bridge.FtConfig;
import org.mpirunft.common.NoSpareAction;

/**
 * Starts a replacement as this JVM was started, with the job's settings added as system
 * properties, so the replacement runs the same program with the same configuration.
 */
final class SpawnLauncher implements WorldRepair.ReplacementLauncher {
    private final String command;
    private final String[] arguments;
    private final List<String> spares;
    private final boolean shrinkWithoutSpare;

    SpawnLauncher(FtConfig config, String job, WarmSpares warm) {
        ProcessHandle.Info self = ProcessHandle.current().info();
        this.command = self.command().orElseThrow(() -> new BridgeException("cannot tell how this JVM was started"));
        List<String> args = new ArrayList<>();
        for (Map.Entry<String, String> property : config.toProperties(job).entrySet()) {
            args.add("-D" + property.getKey() + "=" + property.getValue());
        }
        if (!warm.isEmpty()) {
            // A spawned replacement may be the one that calls a warm spare in a later repair.
            args.add("-D" + FtConfig.WARM_TABLE + "=" + warm.encode());
        }
        for (String arg : self.arguments().orElseThrow(() -> new BridgeException("cannot read this JVM's arguments"))) {
            if (!arg.startsWith("-Dmpirunft.")) {
                args.add(arg);
            }
        }
        this.arguments = args.toArray(String[]::new);
        this.spares = config.spares();
        this.shrinkWithoutSpare = config.whenNoSpare() == NoSpareAction.SHRINK;
    }

    @Override
    public String command() {
        return command;
    }

    @Override
    public String[] arguments() {
        return arguments.clone();
    }

    /**
     * The configured spare list, in order: the next unused spare for each lost rank. An attempt
     * after a failed one skips the spares the failed attempts used.
     */
    @Override
    public Map<Integer, String> hostsFor(int[] lostRanks, int sparesUsed, int attempt) {
        return hostsFor(lostRanks, sparesUsed + (attempt - 1) * lostRanks.length);
    }

    /**
     * The next unused spare of the list for each lost rank, {@code sparesUsed} being used already;
     * none at all (the job shrinks) if the list runs out and the job says {@code shrink}.
     */
    Map<Integer, String> hostsFor(int[] lostRanks, int sparesUsed) {
        Map<Integer, String> hosts = new java.util.LinkedHashMap<>();
        if (shrinkWithoutSpare && sparesUsed + lostRanks.length > spares.size()) {
            return Map.of();
        }
        for (int i = 0; i < lostRanks.length; i++) {
            int index = sparesUsed + i;
            if (index >= spares.size()) {
                throw new BridgeException("no spare left for replacement " + (index + 1) + ": " + FtConfig.SPARES + " lists " + spares);
            }
            hosts.put(lostRanks[i], spares.get(index));
        }
        return hosts;
    }

    /** Whether a spare list was configured at all. */
    boolean hasSpares() {
        return !spares.isEmpty();
    }
}
