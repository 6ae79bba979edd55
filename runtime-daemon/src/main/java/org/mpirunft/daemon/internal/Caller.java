package org.mpirunft.daemon.internal;

import java.util.Optional;
import org.mpirunft.common.JobOwner;

/**
 * Who sent a control request: the local user behind the connection, from the kernel's
 * {@code SO_PEERCRED}, never from the request. Operators (root, or members of the daemon's
 * {@code control.operators} group) may act on every job and on the nodes; everyone else on their
 * own jobs only, as Slurm's users on theirs.
 */
record Caller(JobOwner user, boolean operator) {
    /** Whether this caller may see the details of, and act on, a job that belongs to {@code owner}. */
    boolean mayActOn(JobOwner owner) {
        return operator || user.uid() == owner.uid();
    }

    /**
     * The caller behind {@code peerName}, the user name the JDK gives for a socket peer.
     *
     * @param operatorGroup the gid of {@code control.operators}, if configured and known on this node
     */
    static Caller of(String peerName, Optional<Long> operatorGroup) {
        Accounts.Account account = Accounts.byName(peerName)
                .orElseThrow(() -> new IllegalStateException("the node has no user " + peerName));
        boolean operator = account.uid() == 0 || operatorGroup.map(account.groups()::contains).orElse(false);
        return new Caller(new JobOwner(account.uid(), account.name()), operator);
    }

    @Override
    public String toString() {
        return "user " + user.name() + (operator ? " (operator)" : "");
    }
}
