package org.mpirunft.membership;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A snapshot of the group as one member sees it. Every member installs the same views in the
 * same order; {@code id} grows with every view change.
 *
 * @param id      the view number, -1 for {@link #NONE}. Two sides of a partition number their
 *                views independently, so an id identifies a view only together with its members
 * @param members the members, oldest first: the first one is the coordinator
 */
public record ClusterView(long id, List<Member> members) {
    /** The view of a member that has not joined yet (or has left). */
    public static final ClusterView NONE = new ClusterView(-1, List.of());

    public ClusterView {
        Objects.requireNonNull(members, "members must be set");
        members = List.copyOf(members);
    }

    public Optional<Member> coordinator() {
        return members.isEmpty() ? Optional.empty() : Optional.of(members.getFirst());
    }

    public int size() {
        return members.size();
    }

    public Optional<Member> member(String nodeName) {
        return members.stream().filter(m -> m.name().equals(nodeName)).findFirst();
    }

    public Optional<Member> memberById(String memberId) {
        return members.stream().filter(m -> m.id().equals(memberId)).findFirst();
    }

    public boolean contains(String nodeName) {
        return member(nodeName).isPresent();
    }

    public List<String> names() {
        return members.stream().map(Member::name).toList();
    }

    /**
     * A table for people: one line per member, coordinator first. This is what the daemon and
     * the {@code membership view} command print.
     */
    public String render() {
        if (members.isEmpty()) {
            return "no view (not joined)\n";
        }
        int nameWidth = Math.max(4, members.stream().mapToInt(m -> m.name().length()).max().orElse(4));
        String format = "  %-" + nameWidth + "s  %-7s  %5s  %6s  %6s  %s%n";
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "view %d: %d member%s, coordinator %s%n",
                id, members.size(), members.size() == 1 ? "" : "s", members.getFirst().name()));
        out.append(String.format(Locale.ROOT, format, "NAME", "ROLE", "SLOTS", "IN USE", "LOAD", "CONTROL"));
        for (Member m : members) {
            NodeLoad load = m.load();
            out.append(String.format(Locale.ROOT, format,
                    m.name(),
                    m.role().name().toLowerCase(Locale.ROOT),
                    m.metadata().slots(),
                    load.isKnown() ? Integer.toString(load.slotsInUse()) : "-",
                    load.isKnown() ? String.format(Locale.ROOT, "%.2f", load.loadAverage()) : "-",
                    m.metadata().controlEndpoint()));
        }
        return out.toString();
    }
}
