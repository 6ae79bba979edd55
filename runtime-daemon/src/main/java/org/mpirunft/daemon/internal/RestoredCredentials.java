package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.mpirunft.common.JobOwner;

/**
 * Whether a restored thread runs as its job's owner, from its {@code /proc/PID/task/TID/status}:
 * CRIU sets the credentials its images hold, and the daemon holds them to the job's owner.
 */
final class RestoredCredentials {
    private RestoredCredentials() {
    }

    /**
     * What is wrong with the credentials in {@code status} for {@code owner} (one phrase), or empty
     * when they are the owner's: every uid (real, effective, saved, file system) the owner's,
     * every gid the owner's primary group, and the supplementary groups the owner's groups on this
     * node. A root job's groups are the daemon's, not root's account's, so they are not compared.
     * A thread gone meanwhile is no mismatch.
     */
    static Optional<String> mismatch(Path status, JobOwner owner, Accounts.Account account) {
        String text;
        try {
            text = Files.readString(status);
        } catch (IOException gone) {
            return Optional.empty();
        }
        return mismatchIn(text, owner, account);
    }

    static Optional<String> mismatchIn(String status, JobOwner owner, Accounts.Account account) {
        List<Long> uids = numbers(field(status, "Uid"));
        if (uids.size() != 4 || uids.stream().anyMatch(uid -> uid != owner.uid())) {
            return Optional.of("has uids " + uids + ", not " + owner.uid());
        }
        List<Long> gids = numbers(field(status, "Gid"));
        if (gids.size() != 4 || gids.stream().anyMatch(gid -> gid != account.gid())) {
            return Optional.of("has gids " + gids + ", not " + account.gid());
        }
        if (!owner.isRoot()) {
            Set<Long> groups = new TreeSet<>(numbers(field(status, "Groups")));
            if (!groups.equals(new TreeSet<>(account.groups()))) {
                return Optional.of("has groups " + groups + ", not " + new TreeSet<>(account.groups()));
            }
        }
        return Optional.empty();
    }

    private static String field(String status, String name) {
        return status.lines().filter(line -> line.startsWith(name + ":")).findFirst().map(line -> line.substring(name.length() + 1))
                .orElse("");
    }

    private static List<Long> numbers(String words) {
        return Arrays.stream(words.strip().split("\\s+")).filter(w -> !w.isEmpty()).map(Long::parseLong).toList();
    }
}
