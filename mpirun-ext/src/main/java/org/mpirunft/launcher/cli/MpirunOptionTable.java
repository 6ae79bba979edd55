package org.mpirunft.launcher.cli;

import java.util.Map;
import java.util.Optional;

/**
 * How many values Open MPI 5's mpirun options take, so that mpirun-ft can pass options it does
 * not know through to mpirun with their values, and tell where the program starts. From
 * {@code mpirun --help} of Open MPI 5.0.x with PRRTE 3 to 5 (PRRTE's {@code schizo/ompi}
 * options and their Open MPI 4 spellings that it still accepts).
 *
 * <p>The rule for an option that is not in this table: it takes no value, unless it is written
 * {@code --option=value}. So an unknown option with a value must be written with {@code =}, or
 * its value would be taken for the program.
 */
final class MpirunOptionTable {
    /** Options with two values: {@code --mca KEY VALUE}. */
    private static final Map<String, Integer> ARITY = Map.ofEntries(
            Map.entry("--mca", 2), Map.entry("-mca", 2),
            Map.entry("--gmca", 2), Map.entry("-gmca", 2),
            Map.entry("--omca", 2), Map.entry("--prtemca", 2), Map.entry("--pmixmca", 2),
            // One value.
            Map.entry("-x", 1),
            Map.entry("--map-by", 1), Map.entry("--rank-by", 1), Map.entry("--bind-to", 1),
            Map.entry("--output", 1), Map.entry("--display", 1), Map.entry("--runtime-options", 1),
            Map.entry("--with-ft", 1), Map.entry("--initial-errhandler", 1), Map.entry("--max-restarts", 1),
            Map.entry("--personality", 1), Map.entry("--tune", 1), Map.entry("--am", 1), Map.entry("--app", 1),
            Map.entry("--path", 1), Map.entry("--prefix", 1), Map.entry("--pmix-prefix", 1),
            Map.entry("--wdir", 1), Map.entry("--wd", 1), Map.entry("--preload-files", 1),
            Map.entry("--timeout", 1), Map.entry("--stream-buffering", 1), Map.entry("--output-filename", 1),
            Map.entry("--report-pid", 1), Map.entry("--report-uri", 1), Map.entry("--dvm", 1), Map.entry("--dvm-uri", 1),
            Map.entry("--rankfile", 1), Map.entry("--add-host", 1), Map.entry("--add-hostfile", 1),
            Map.entry("--forward-signals", 1), Map.entry("--cpu-set", 1), Map.entry("--cpus-per-proc", 1),
            Map.entry("--cpus-per-rank", 1), Map.entry("--npernode", 1), Map.entry("--npersocket", 1),
            Map.entry("-N", 1), Map.entry("--debug-daemons-file", 1), Map.entry("--set-env", 1),
            Map.entry("--unset-env", 1), Map.entry("--prepend-env", 1), Map.entry("--append-env", 1),
            Map.entry("--hostfile", 1), Map.entry("--machinefile", 1), Map.entry("--default-hostfile", 1),
            Map.entry("--host", 1), Map.entry("-H", 1), Map.entry("-np", 1), Map.entry("--np", 1), Map.entry("-n", 1),
            Map.entry("-c", 1), Map.entry("--n", 1), Map.entry("--report-child-jobs-separately", 0),
            Map.entry("--xterm", 1), Map.entry("--tmpdir", 1), Map.entry("--enable-recovery", 0),
            Map.entry("--disable-recovery", 0), Map.entry("--continuous", 0));

    private MpirunOptionTable() {
    }

    /** The number of values {@code option} takes; empty for an option this table does not know. */
    static Optional<Integer> arity(String option) {
        return Optional.ofNullable(ARITY.get(option));
    }
}
