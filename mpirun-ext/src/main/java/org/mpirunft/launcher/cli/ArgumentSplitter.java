package org.mpirunft.launcher.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Splits an {@code mpirun-ft} command line as mpirun would read it: options, then the program
 * and its arguments. mpirun-ft's own options ({@link LauncherOptions}) go to its parser;
 * every other option goes to mpirun, unchanged and in order, with as many values as
 * {@link MpirunOptionTable} says it takes. The first word that is not an option, or whatever
 * follows {@code --}, starts the program: everything from there on is the program's.
 */
final class ArgumentSplitter {
    /**
     * @param own    for mpirun-ft's options
     * @param mpirun for mpirun, in order
     * @param program the program and its arguments
     */
    record Split(List<String> own, List<String> mpirun, List<String> program) {
    }

    private ArgumentSplitter() {
    }

    /**
     * @param ownArity the number of values of one of mpirun-ft's options, or null if it is not one
     */
    static Split split(List<String> args, Function<String, Integer> ownArity) {
        List<String> own = new ArrayList<>();
        List<String> mpirun = new ArrayList<>();
        int i = 0;
        while (i < args.size()) {
            String arg = args.get(i);
            if (arg.equals("--")) {
                i++;
                break;
            }
            if (!arg.startsWith("-") || arg.equals("-")) {
                break;
            }
            int eq = arg.startsWith("--") ? arg.indexOf('=') : -1;
            String name = eq > 0 ? arg.substring(0, eq) : arg;
            Integer mine = ownArity.apply(name);
            if (mine == null && arg.matches("-v+")) {
                mine = 0;
            }
            List<String> target = mine != null ? own : mpirun;
            int arity = mine != null ? mine : MpirunOptionTable.arity(name).orElse(0);
            target.add(arg);
            i++;
            if (eq < 0) {
                for (int v = 0; v < arity && i < args.size(); v++) {
                    target.add(args.get(i++));
                }
            }
        }
        return new Split(own, mpirun, List.copyOf(args.subList(i, args.size())));
    }
}
