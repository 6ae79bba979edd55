package org.mpirunft.npb.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.mpirunft.common.Json;

/**
 * mpirun-ft's JSON-lines event log ({@code CHECKPOINT_DIR/JOB/events.jsonl}): one object per
 * line, {@code {"version":1,"time":"...Z","job":...,"type":...}} plus the event's fields (see
 * mpirun-ext's README). Read as plain JSON so that the harness does not depend on mpirun-ext.
 */
public final class LauncherEvents {
    /** One event: its type, its time, and the whole object for the type's own fields. */
    public record Event(String type, Instant time, JsonNode fields) {
        public double number(String field) {
            return fields.path(field).asDouble(Double.NaN);
        }

        public String text(String field) {
            return fields.path(field).asText("");
        }
    }

    private final List<Event> events;

    public LauncherEvents(List<Event> events) {
        this.events = List.copyOf(events);
    }

    /** Reads the log; a missing file is an empty log, a line that is not an event is an error naming it. */
    public static LauncherEvents read(Path file) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            return new LauncherEvents(List.of());
        }
        return parse(lines, file.toString());
    }

    public static LauncherEvents parse(List<String> lines, String source) {
        List<Event> events = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode node = Json.MAPPER.readTree(line);
                if (!node.path("type").isTextual() || !node.path("time").isTextual()) {
                    throw new BenchException(source + ":" + (i + 1) + ": an event needs 'type' and 'time'");
                }
                events.add(new Event(node.get("type").asText(), Instant.parse(node.get("time").asText()), node));
            } catch (IOException | java.time.format.DateTimeParseException e) {
                // The last line may be half written while the job runs: only a complete file must parse.
                if (i == lines.size() - 1) {
                    break;
                }
                throw new BenchException(source + ":" + (i + 1) + ": not an event: " + e.getMessage(), e);
            }
        }
        return new LauncherEvents(events);
    }

    public List<Event> all() {
        return events;
    }

    public List<Event> ofType(String type) {
        return events.stream().filter(e -> e.type().equals(type)).toList();
    }

    /** The first event of {@code type} at or after {@code notBefore}. */
    public Optional<Event> first(String type, Instant notBefore) {
        return events.stream().filter(e -> e.type().equals(type) && !e.time().isBefore(notBefore)).findFirst();
    }

    /** Committed checkpoints ({@code checkpoint} events of phase {@code committed}). */
    public List<Event> commits() {
        return ofType("checkpoint").stream().filter(e -> e.text("phase").equals("committed")).toList();
    }

    /** The node each rank was launched on, by the first {@code launch} event; empty if none yet. */
    public List<String> rankNodes() {
        return ofType("launch").stream().findFirst()
                .map(e -> {
                    List<String> nodes = new ArrayList<>();
                    e.fields().path("rankNodes").forEach(n -> nodes.add(n.asText()));
                    return List.copyOf(nodes);
                })
                .orElse(List.of());
    }

    /**
     * The node each rank runs on now: the last {@code launch} event's placement (a restart
     * launches again) with every later {@code replacement} and completed {@code migration}
     * applied (a rank paused or moved onto a spare runs on the spare). Empty if the job has not
     * launched yet.
     */
    public List<String> currentRankNodes() {
        List<String> nodes = new ArrayList<>();
        for (Event e : events) {
            if (e.type().equals("launch")) {
                nodes.clear();
                e.fields().path("rankNodes").forEach(n -> nodes.add(n.asText()));
            } else if (e.type().equals("replacement")) {
                int rank = e.fields().path("rank").asInt(-1);
                if (rank >= 0 && rank < nodes.size()) {
                    nodes.set(rank, e.text("toNode"));
                }
            } else if (e.type().equals("migration") && e.text("phase").equals("done")) {
                e.fields().path("toNodes").properties().forEach(moved -> {
                    int rank = Integer.parseInt(moved.getKey());
                    if (rank >= 0 && rank < nodes.size()) {
                        nodes.set(rank, moved.getValue().asText());
                    }
                });
            }
        }
        return List.copyOf(nodes);
    }

    /** When the job was back after a failure at {@code since}: the first {@code resume}, or a new launch (a restart), at or after it. */
    public Optional<Instant> recoveredAfter(Instant since) {
        return events.stream().filter(e -> !e.time().isBefore(since))
                .filter(e -> e.type().equals("resume") || (e.type().equals("launch") && e.fields().path("attempt").asInt(1) > 1))
                .map(Event::time).findFirst();
    }

    /**
     * Seconds between consecutive checkpoint orders, as the scheduler stamped them: the interval
     * it ordered at (plus its tick, and any wait for the previous order's commit).
     */
    public List<Double> orderSpacingSeconds() {
        List<Instant> orders = ofType("checkpoint").stream().filter(e -> e.text("phase").equals("ordered")).map(Event::time).toList();
        List<Double> gaps = new ArrayList<>();
        for (int i = 1; i < orders.size(); i++) {
            gaps.add(java.time.Duration.between(orders.get(i - 1), orders.get(i)).toNanos() / 1e9);
        }
        return List.copyOf(gaps);
    }
}
