package org.mpirunft.common;

import com.fasterxml.jackson.annotation.JsonIgnore;
import java.util.Objects;

/**
 * The user a job belongs to: who registered it, whose uid its processes run under on every node,
 * and who may see and act on it besides the operators. The uid is what the kernel checks; the name
 * is for people and for looking the user's groups up on each node (a site's users are the same on
 * every node, as Slurm assumes too).
 *
 * @param uid  the user's numeric id, as {@code SO_PEERCRED} gave it
 * @param name the user's login name
 */
public record JobOwner(long uid, String name) {
    /** The owner of jobs recorded before jobs had owners: only root could run one then. */
    public static final JobOwner ROOT = new JobOwner(0, "root");

    public JobOwner {
        if (uid < 0) {
            throw new IllegalArgumentException("a uid is not negative, got " + uid);
        }
        Objects.requireNonNull(name, "name");
        if (name.isBlank()) {
            throw new IllegalArgumentException("a job owner needs a user name");
        }
    }

    /** Not a property of the record on the wire: it follows from the uid. */
    @JsonIgnore
    public boolean isRoot() {
        return uid == 0;
    }

    /** {@code name(uid)}, as in a refusal or a status line. */
    @Override
    public String toString() {
        return name + "(" + uid + ")";
    }
}
