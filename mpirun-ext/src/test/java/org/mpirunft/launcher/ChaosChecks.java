package org.mpirunft.launcher;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/** What scripts/chaos checks in a job's event log and checkpoints, beyond its exit and its result. */
final class ChaosChecks {
    private ChaosChecks() {
    }

    /**
     * A crashed daemon is no node loss (DaemonCrashIT): the scheduler holds the node while a new
     * daemon comes back. So a failure event naming a node whose daemon crashed, and that no other
     * fault of the job touched, is a crash taken for a loss.
     */
    static List<String> crashesTakenForLosses(ChaosJob job, ChaosFaults faults) {
        List<String> crashed = new ArrayList<>();
        List<String> touched = new ArrayList<>();
        for (String action : faults.injected.stream().flatMap(f -> f.actions().stream()).toList()) {
            String[] words = action.replaceAll("\\([^)]*\\)", "").split(" ");
            if (words[0].equals("full-disk")) {
                continue;
            }
            (words[0].equals("crash-daemon") ? crashed : touched).addAll(List.of(words[1].split(",")));
        }
        crashed.removeAll(touched);
        List<String> found = new ArrayList<>();
        try {
            for (JsonNode failure : job.events()) {
                if (!failure.path("type").asText().equals("failure")) {
                    continue;
                }
                for (JsonNode node : failure.path("nodes")) {
                    if (crashed.contains(node.asText())) {
                        found.add("the daemon crash on " + node.asText() + " was taken for the node's loss: failure "
                                + failure.path("failureId").asText() + " from " + failure.path("source").asText());
                    }
                }
            }
        } catch (IOException | RuntimeException e) {
            found.add("the event log is unreadable: " + e.getMessage());
        }
        return found;
    }

    /**
     * A pause that resumed from an epoch the job never committed (no {@code checkpoint} event of
     * phase {@code committed} for it anywhere in its log: the commit's event may be logged just
     * after a resume that follows it closely): a checkpoint that could not be written whole, under
     * a full disk for one, must never be the recovery line. Epoch 0 is the job's start.
     */
    static List<String> resumesFromUncommittedEpochs(ChaosJob job) {
        try {
            List<JsonNode> events = job.events();
            Set<Long> committed = new HashSet<>();
            events.stream().filter(e -> e.path("type").asText().equals("checkpoint") && e.path("phase").asText().equals("committed"))
                    .forEach(e -> committed.add(e.path("epoch").asLong()));
            return events.stream().filter(e -> e.path("type").asText().equals("resume")).map(e -> e.path("epoch").asLong())
                    .filter(epoch -> epoch != 0 && !committed.contains(epoch))
                    .map(epoch -> "resumed from epoch " + epoch + ", which never committed (committed: " + committed + ")").toList();
        } catch (IOException | RuntimeException e) {
            return List.of("the event log is unreadable: " + e.getMessage());
        }
    }

    /** The iteration of the newest committed epoch (one with a manifest), 0 if none: where a relaunch resumes. */
    static long lastCommittedIteration(Path jobDirectory) throws IOException {
        if (!Files.isDirectory(jobDirectory)) {
            return 0;
        }
        long newest = 0;
        try (Stream<Path> epochs = Files.list(jobDirectory)) {
            for (Path epoch : epochs.filter(p -> p.getFileName().toString().startsWith("epoch-")).toList()) {
                Path manifest = epoch.resolve("manifest.json");
                if (Files.exists(manifest)) {
                    newest = Math.max(newest, new com.fasterxml.jackson.databind.ObjectMapper().readTree(manifest.toFile()).path("iteration").asLong());
                }
            }
        }
        return newest;
    }
}
