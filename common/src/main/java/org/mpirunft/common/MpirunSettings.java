package org.mpirunft.common;

import java.util.ArrayList;
import java.util.List;

/**
 * The mpirun options recovery needs, defined once for the two places that build mpirun command
 * lines: mpirun-ft's ({@code MpirunCommand} in mpirun-ext) and the test kit's ({@code MpiJobs} in
 * blcr-bridge's test-jar), so that a test runs the rank library under the mpirun line the product
 * gives it. In order:
 * <pre>
 * --with-ft ulfm                          (ULFM on; off for whole-job restarts and transparent mode)
 * --mca coll ^han                         (han gave wrong results right after a kill)
 * --mca coll_ftagree_era_topology 2       (with ULFM: the agreement's star, not its binary tree,
 *                                          whose repair around a lost inner rank hung the shrink
 *                                          from 8 ranks up)
 * --prtemca plm_ssh_agent AGENT           (when given: who starts Open MPI's node daemons; ftd
 *                                          tags them with the job)
 * --prtemca plm_ssh_no_tree_spawn 1       (the head starts every node daemon, so no daemon
 *                                          depends on another)
 * --prtemca pmix_terminate_connected 0    (with ULFM: a replacement lost while it starts must not
 *                                          take the job it was spawned into down)
 * --bind-to none
 * --mca mpi_yield_when_idle 1             (a waiting rank must not starve a starting replacement)
 * </pre>
 * Only the options: the host list, the ranks' environment and the program are each caller's.
 */
public final class MpirunSettings {
    private MpirunSettings() {
    }

    /**
     * One option of mpirun's command line: {@code --mca KEY VALUE} or {@code --prtemca KEY VALUE}
     * (a parameter, {@code key} given) or {@code --NAME VALUE} ({@code key} null).
     */
    public record Setting(String option, String key, String value) {
        public static Setting mca(String key, String value) {
            return new Setting("--mca", key, value);
        }

        public static Setting prtemca(String key, String value) {
            return new Setting("--prtemca", key, value);
        }

        public static Setting option(String name, String value) {
            return new Setting(name, null, value);
        }

        /** The words mpirun is given. */
        public List<String> argv() {
            return key == null ? List.of(option, value) : List.of(option, key, value);
        }

        /**
         * Whether {@code options} (the user's mpirun options) set this already, to any value:
         * {@code --NAME}, {@code -NAME} or {@code --NAME=value} for an option; the same key after
         * {@code --mca} or {@code -mca} (and so on) for a parameter. A caller leaves such a
         * setting out, so mpirun never sees it twice and the user's wins.
         */
        public boolean isSetIn(List<String> options) {
            String bare = option.replaceFirst("^-+", "");
            if (key != null) {
                for (int i = 0; i + 1 < options.size(); i++) {
                    String given = options.get(i);
                    if ((given.equals("--" + bare) || given.equals("-" + bare)) && options.get(i + 1).equals(key)) {
                        return true;
                    }
                }
                return false;
            }
            for (String given : options) {
                String o = given.replaceFirst("^-+", "");
                if (given.startsWith("-") && (o.equals(bare) || o.startsWith(bare + "="))) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Not one of the settings above, and never given by mpirun-ft itself: for nodes whose cores
     * are shared (a simulated cluster, an oversubscribed node), where a rank idle in MPI must give
     * its core away to a replacement's JVM starting up. With {@code mpi_yield_when_idle 1} such a
     * rank yields between polls; with this it sleeps instead of only calling sched_yield. The
     * launcher's README tells users of such nodes to add it; the test kit and the benchmark do.
     */
    public static final Setting SHARED_CORES = Setting.mca("threads_pthreads_yield_strategy", "nanosleep");

    /**
     * The settings in the order above: those marked "with ULFM" only when {@code ulfm}, the
     * launch agent only when {@code launchAgent} is not null.
     */
    public static List<Setting> recovery(boolean ulfm, String launchAgent) {
        List<Setting> settings = new ArrayList<>();
        if (ulfm) {
            settings.add(Setting.option("--with-ft", "ulfm"));
        }
        settings.add(Setting.mca("coll", "^han"));
        // Open MPI 5.0.7's agreement (ERA, under MPIX_Comm_shrink) arranges the ranks in a
        // binary tree; when rank 2 of 8 or more (an inner rank: 5 and 6 hang below it) was lost,
        // every survivor waited in mca_coll_ftagree_era_intra for good, though each counted the
        // failure (gdb, 25 s in): MG class C on 8 nodes hung in 12 of 12 pauses. In a star every
        // rank but the root is a leaf, and a lost root is replaced by the next: 0 hangs in the
        // 8 pauses since (MG and EP on 8 nodes; CG, EP, FT and MG on 16), rank 2 or rank 0 lost
        // (docs/open-mpi-defects.md, issue 20). The root sends and receives one message per rank, which costs
        // nothing at these sizes.
        if (ulfm) {
            settings.add(Setting.mca("coll_ftagree_era_topology", "2"));
        }
        if (launchAgent != null) {
            settings.add(Setting.prtemca("plm_ssh_agent", launchAgent));
        }
        settings.add(Setting.prtemca("plm_ssh_no_tree_spawn", "1"));
        // Replacements are spawned, so PMIx-connected to the job: by default the loss of one
        // that is still starting (its spare died) terminates the whole job with it.
        if (ulfm) {
            settings.add(Setting.prtemca("pmix_terminate_connected", "0"));
        }
        settings.add(Setting.option("--bind-to", "none"));
        settings.add(Setting.mca("mpi_yield_when_idle", "1"));
        return List.copyOf(settings);
    }
}
