package org.mpirunft.daemon.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.mpirunft.common.JobOwner;

/**
 * How a job's process starts as its owner: the daemon is root, the job is the user's, as
 * {@code slurmstepd} starts a step's tasks. The command runs under {@code setpriv} with the
 * owner's uid, primary gid and supplementary groups (looked up on this node, where the site's
 * users are the same as on the launcher's), no capability in any set, and {@code no_new_privs},
 * so nothing it runs can become root again. Its environment is rebuilt, not inherited: the
 * daemon's own variables (its secret's path, systemd's sockets, root's home, Open MPI's
 * run-as-root switches) are not the user's business.
 *
 * <p>A root-owned job (root ran {@code mpirun-ft}) starts as it always did, with the daemon's
 * environment.
 */
final class AsOwner {
    /** util-linux's setpriv, in every Debian system (util-linux is essential). */
    static final String SETPRIV = "/usr/bin/setpriv";

    /** Variables of the daemon's environment that describe the node's software, not the daemon: a job needs them. */
    private static final List<String> SITE_VARIABLES = List.of("PATH", "LD_LIBRARY_PATH", "LANG", "LANGUAGE", "TZ", "JAVA_HOME",
            "MPI_HOME", "MPIRUN_FT_NODE", "MPIRUN_FT_CLUSTER");
    /** Prefixes of site-wide MCA settings (Open MPI, PRRTE, PMIx) and locale variables. */
    private static final List<String> SITE_PREFIXES = List.of("LC_", "OMPI_MCA_", "PRTE_MCA_", "PMIX_MCA_");
    /** Switches that exist only to let root run Open MPI; a user's job never carries them. */
    private static final List<String> ROOT_ONLY = List.of("OMPI_MCA_allow_run_as_root", "PRTE_MCA_allow_run_as_root");

    private AsOwner() {
    }

    /** {@code argv} as {@code owner} runs it (unchanged for root). */
    static List<String> command(JobOwner owner, Accounts.Account account, List<String> argv) {
        if (owner.isRoot()) {
            return argv;
        }
        List<String> command = new ArrayList<>(List.of(SETPRIV, "--reuid=" + account.uid(), "--regid=" + account.gid(),
                "--groups=" + String.join(",", account.groups().stream().map(String::valueOf).toList()),
                "--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"));
        command.addAll(argv);
        return command;
    }

    /**
     * The environment a process of {@code owner}'s job starts with: the site's variables from
     * {@code daemonEnvironment}, the user's identity, then {@code job}'s own variables.
     */
    static Map<String, String> environment(Accounts.Account account, Map<String, String> daemonEnvironment, Map<String, String> job) {
        Map<String, String> environment = new TreeMap<>();
        daemonEnvironment.forEach((name, value) -> {
            if ((SITE_VARIABLES.contains(name) || SITE_PREFIXES.stream().anyMatch(name::startsWith)) && !ROOT_ONLY.contains(name)) {
                environment.put(name, value);
            }
        });
        environment.putIfAbsent("PATH", "/usr/local/bin:/usr/bin:/bin");
        environment.put("HOME", account.home());
        environment.put("USER", account.name());
        environment.put("LOGNAME", account.name());
        environment.putAll(job);
        return environment;
    }

    /** The node's account of {@code owner}: the same uid under the same name, or a one-line refusal. */
    static Accounts.Account account(JobOwner owner, String node) {
        Accounts.Account account = Accounts.byUid(owner.uid()).orElseThrow(() -> new IllegalArgumentException(
                node + " has no user with uid " + owner.uid() + " (the job's owner " + owner.name() + ")"));
        if (!account.name().equals(owner.name())) {
            throw new IllegalArgumentException(node + ": uid " + owner.uid() + " is " + account.name() + " here, not the job's owner "
                    + owner.name() + " (users must be the same on every node)");
        }
        return account;
    }
}
