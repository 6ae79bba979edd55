package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.mpirunft.common.MpirunSettings;
import org.mpirunft.common.MpirunSettings.Setting;
import org.mpirunft.common.rank.WarmSpareProcess;

/**
 * Open MPI's mpirun command line for a job, with the settings recovery needs. Pure: the same
 * inputs give the same argv.
 *
 * <pre>
 * mpirun RECOVERY SETTINGS                               ({@link MpirunSettings#recovery}: --with-ft ulfm,
 *                                                         --mca coll ^han, the agreement's star, the launch
 *                                                         agent ftd, ..., each with its reason there)
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
 * {@code --bind-to core} wins over {@code --bind-to none}: {@link MpirunSettings.Setting#isSetIn}),
 * so mpirun never sees it twice.
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
            List<Setting> settings = new ArrayList<>(MpirunSettings.recovery(ulfm, launchAgent));
            if (jobInterface != null) { // transparent mode: the job network only (above)
                settings.addAll(List.of(Setting.mca("btl", "self,tcp"), Setting.mca("btl_tcp_if_include", jobInterface),
                        Setting.mca("oob_tcp_if_include", jobInterface), Setting.prtemca("oob_tcp_if_include", jobInterface)));
            }
            List<String> argv = new ArrayList<>();
            argv.add(mpirun);
            for (Setting setting : settings) {
                if (!setting.isSetIn(passThrough)) {
                    argv.addAll(setting.argv());
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
}
