package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.mpirunft.common.rank.WarmSpareProcess;

/**
 * Open MPI's mpirun command line for a job, with the settings recovery needs. Pure: the same
 * inputs give the same argv.
 *
 * <pre>
 * mpirun --with-ft ulfm                                  (ULFM on; off for --recovery restart)
 *        --mca coll ^han                                 (han gave wrong results right after a kill)
 *        --mca coll_ftagree_era_topology 2               (with ULFM: the agreement's star, not its binary
 *                                                         tree, whose repair around a lost inner rank
 *                                                         hung the shrink from 8 ranks up)
 *        --prtemca plm_ssh_agent AGENT                   (ftd starts the node daemons, tagged with the job)
 *        --prtemca plm_ssh_no_tree_spawn 1               (no node daemon depends on another)
 *        --prtemca pmix_terminate_connected 0            (with ULFM: a replacement lost while it starts
 *                                                         must not take the job it was spawned into down)
 *        --bind-to none
 *        --mca mpi_yield_when_idle 1                     (a waiting rank must not starve a starting replacement)
 *        --host COMPUTE:SLOTS,...,SPARE:SLOTS,... -np N  (spares last: their slots stay free)
 *        -x MPIRUN_FT_JOB=... -x ...                     (the rank library's settings)
 *        PASS-THROUGH OPTIONS... PROGRAM ARGS...
 *      : --host SPARE:SLOTS,... -np K -x ... PROGRAM ARGS...  (warm spares: one rank per spare slot, world
 *                                                       ranks N to N+K-1, idle until a recovery)
 * </pre>
 * In transparent mode (CRIU restores the whole job) it is plain Open MPI: no ULFM, no spare in
 * {@code --host} (a spare becomes the lost node, it runs no node daemon of the job before), and
 * every connection on the job network, whose addresses move with the nodes:
 * <pre>
 *        --mca btl self,tcp                              (no shared-memory segment a spare lacks)
 *        --mca btl_tcp_if_include IFACE --mca oob_tcp_if_include IFACE --prtemca oob_tcp_if_include IFACE
 * </pre>
 *
 * A default is left out when the pass-through options set the same thing (the user's
 * {@code --bind-to core} wins over {@code --bind-to none}), so mpirun never sees it twice.
 */
public final class MpirunCommand {
    private final List<String> argv;

    private MpirunCommand(List<String> argv) {
        this.argv = List.copyOf(argv);
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<String> argv() {
        return argv;
    }

    public String executable() {
        return argv.getFirst();
    }

    public List<String> arguments() {
        return argv.subList(1, argv.size());
    }

    @Override
    public String toString() {
        return String.join(" ", argv);
    }

    /**
     * This command with its stdout and stderr sent to the named pipes {@code stdout} and
     * {@code stderr} and its stdin from /dev/null, through a shell that execs mpirun (so mpirun
     * keeps the shell's PID): transparent mode, where mpirun's streams must be reopened by path
     * after a restore. mpirun leads a session of its own: CRIU dumps a tree only if its session
     * leader is visible in the tree's PID namespace, and mpirun-ft's own session may have been
     * made outside it (a CI runner or container that unshared the PID namespace after setsid).
     * {@code setsid} execs in place here, since a shell started by Java leads no process group;
     * {@code -w} keeps the exit status should it fork after all.
     */
    public MpirunCommand redirected(java.nio.file.Path stdout, java.nio.file.Path stderr) {
        for (java.nio.file.Path path : List.of(stdout, stderr)) {
            if (path.toString().contains("'")) {
                throw new IllegalArgumentException("an output pipe's path may not hold a quote: " + path);
            }
        }
        List<String> wrapped = new ArrayList<>(List.of("/bin/sh", "-c",
                "exec setsid -w \"$@\" < /dev/null > '" + stdout + "' 2> '" + stderr + "'", "mpirun-ft"));
        wrapped.addAll(argv);
        return new MpirunCommand(wrapped);
    }

    public static final class Builder {
        private String mpirun = "mpirun";
        private boolean ulfm = true;
        private String launchAgent;
        private HostPlan hosts;
        private final Map<String, String> rankEnvironment = new LinkedHashMap<>();
        private final List<String> passThrough = new ArrayList<>();
        private final List<String> program = new ArrayList<>();
        private int warmSpares;
        private String jobInterface;

        private Builder() {
        }

        /** Open MPI's mpirun, a path or a name looked up on the PATH. */
        public Builder mpirun(String executable) {
            this.mpirun = Objects.requireNonNull(executable, "mpirun");
            return this;
        }

        /** Whether ranks survive a failure ({@code --with-ft ulfm}); off for whole-job restarts. */
        public Builder ulfm(boolean on) {
            this.ulfm = on;
            return this;
        }

        /**
         * Transparent mode: every connection of the job on {@code iface}, the job network that
         * carries the nodes' floating addresses; spares left out of the host list. No ULFM.
         */
        public Builder transparent(String iface) {
            this.jobInterface = Objects.requireNonNull(iface, "job interface");
            this.ulfm = false;
            return this;
        }

        /** The command PRRTE starts node daemons through, such as {@code /opt/mpirun-ft/bin/ftd agent}. */
        public Builder launchAgent(String agent) {
            this.launchAgent = agent;
            return this;
        }

        public Builder hosts(HostPlan plan) {
            this.hosts = plan;
            return this;
        }

        /** Exported to every rank with {@code -x NAME=VALUE}, in this order. */
        public Builder rankEnvironment(Map<String, String> variables) {
            variables.forEach((name, value) -> {
                if (!name.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                    throw new IllegalArgumentException("'" + name + "' is not an environment variable name");
                }
                rankEnvironment.put(name, Objects.requireNonNull(value, name));
            });
            return this;
        }

        /** The user's mpirun options, passed on unchanged and in order. */
        public Builder passThrough(List<String> options) {
            passThrough.addAll(options);
            return this;
        }

        public Builder program(List<String> programAndArguments) {
            program.addAll(programAndArguments);
            return this;
        }

        /**
         * Warm spares: {@code count} more ranks of the same program on the spares' slots, in a
         * second app context so that they are the world's last ranks and run on the spares only.
         */
        public Builder warmSpares(int count) {
            this.warmSpares = count;
            return this;
        }

        public MpirunCommand build() {
            if (hosts == null) {
                throw new IllegalStateException("MpirunCommand needs hosts");
            }
            if (program.isEmpty()) {
                throw new BadSettingException("PROGRAM", "no program to run: give it after the options, as to mpirun");
            }
            PassThroughOptions user = new PassThroughOptions(passThrough);
            List<String> argv = new ArrayList<>();
            argv.add(mpirun);
            if (ulfm && !user.has("--with-ft")) {
                argv.addAll(List.of("--with-ft", "ulfm"));
            }
            if (!user.hasParameter("mca", "coll")) {
                argv.addAll(List.of("--mca", "coll", "^han"));
            }
            // Open MPI 5.0.7's agreement (ERA, under MPIX_Comm_shrink) arranges the ranks in a
            // binary tree; when rank 2 of 8 or more (an inner rank: 5 and 6 hang below it) was lost,
            // every survivor waited in mca_coll_ftagree_era_intra for good, though each counted the
            // failure (gdb, 25 s in): MG class C on 8 nodes hung in 12 of 12 pauses. In a star every
            // rank but the root is a leaf, and a lost root is replaced by the next: 0 hangs in the
            // 8 pauses since (MG and EP on 8 nodes; CG, EP, FT and MG on 16), rank 2 or rank 0 lost
            // (README, issue 20). The root sends and receives one message per rank, which costs
            // nothing at these sizes.
            if (ulfm && !user.hasParameter("mca", "coll_ftagree_era_topology")) {
                argv.addAll(List.of("--mca", "coll_ftagree_era_topology", "2"));
            }
            if (launchAgent != null && !user.hasParameter("prtemca", "plm_ssh_agent")) {
                argv.addAll(List.of("--prtemca", "plm_ssh_agent", launchAgent));
            }
            if (!user.hasParameter("prtemca", "plm_ssh_no_tree_spawn")) {
                argv.addAll(List.of("--prtemca", "plm_ssh_no_tree_spawn", "1"));
            }
            // Replacements are spawned, so PMIx-connected to the job: by default the loss of one
            // that is still starting (its spare died) terminates the whole job with it.
            if (ulfm && !user.hasParameter("prtemca", "pmix_terminate_connected")) {
                argv.addAll(List.of("--prtemca", "pmix_terminate_connected", "0"));
            }
            if (!user.has("--bind-to")) {
                argv.addAll(List.of("--bind-to", "none"));
            }
            if (!user.hasParameter("mca", "mpi_yield_when_idle")) {
                argv.addAll(List.of("--mca", "mpi_yield_when_idle", "1"));
            }
            if (jobInterface != null) {
                if (!user.hasParameter("mca", "btl")) {
                    argv.addAll(List.of("--mca", "btl", "self,tcp"));
                }
                if (!user.hasParameter("mca", "btl_tcp_if_include")) {
                    argv.addAll(List.of("--mca", "btl_tcp_if_include", jobInterface));
                }
                if (!user.hasParameter("mca", "oob_tcp_if_include")) {
                    argv.addAll(List.of("--mca", "oob_tcp_if_include", jobInterface));
                }
                if (!user.hasParameter("prtemca", "oob_tcp_if_include")) {
                    argv.addAll(List.of("--prtemca", "oob_tcp_if_include", jobInterface));
                }
            }
            argv.addAll(List.of("--host", jobInterface != null ? hosts.computeHostArgument() : hosts.hostArgument(),
                    "-np", Integer.toString(hosts.ranks())));
            rankEnvironment.forEach((name, value) -> argv.addAll(List.of("-x", name + "=" + value)));
            argv.addAll(passThrough);
            argv.addAll(program);
            if (warmSpares > 0) {
                if (warmSpares > hosts.spareSlots().size()) {
                    throw new IllegalStateException(warmSpares + " warm spares do not fit in the spares' " + hosts.spareSlots().size()
                            + " slots");
                }
                argv.addAll(List.of(":", "--host", hosts.spareHostArgument(), "-np", Integer.toString(warmSpares)));
                // With PRRTE 5 an -x of the first context reaches all, one of a later context only
                // that context (both seen in the image); the spares get theirs either way.
                rankEnvironment.forEach((name, value) -> argv.addAll(List.of("-x", name + "=" + value)));
                // This context's only: the node daemons do not count an idle warm spare as a slot in use.
                argv.addAll(List.of("-x", WarmSpareProcess.VARIABLE + "=1"));
                argv.addAll(program);
            }
            return new MpirunCommand(argv);
        }
    }

    /** Looks up what the user's pass-through options already set. */
    private record PassThroughOptions(List<String> options) {
        /** {@code --name}, {@code -name} or {@code --name=value}. */
        boolean has(String longName) {
            String bare = longName.replaceFirst("^-+", "");
            for (String option : options) {
                String o = option.replaceFirst("^-+", "");
                if (option.startsWith("-") && (o.equals(bare) || o.startsWith(bare + "="))) {
                    return true;
                }
            }
            return false;
        }

        /** {@code --kind key value} (or {@code -kind}) among the options. */
        boolean hasParameter(String kind, String key) {
            for (int i = 0; i + 1 < options.size(); i++) {
                String option = options.get(i);
                if ((option.equals("--" + kind) || option.equals("-" + kind)) && options.get(i + 1).equals(key)) {
                    return true;
                }
            }
            return false;
        }
    }
}
