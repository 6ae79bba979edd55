package org.mpirunft.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Slurm allocation mpirun-ft was started in ({@code salloc}, {@code sbatch}): its nodes, in
 * Slurm's order, with the tasks Slurm gives each. Without {@code --host} or {@code --hostfile}
 * they are the job's hosts: the ranks fill the first ones, and the nodes beyond are the spares,
 * so {@code salloc -N 6 mpirun-ft -np 4 --spares 2} keeps its last two nodes for replacements
 * and the job never leaves its allocation.
 *
 * <p>Open MPI's runtime must not see the allocation itself: inside one, PRRTE starts its node
 * daemons with {@code srun} and ends the whole job when that {@code srun} fails (a node lost), and
 * it would refuse hosts outside Slurm's list. mpirun-ft starts mpirun without the
 * {@code SLURM_*} variables ({@link #variables}); its own launch agent starts the node daemons.
 *
 * @param jobId the allocation's job id
 * @param hosts its nodes with their task counts
 */
public record SlurmAllocation(String jobId, List<HostSlot> hosts) {
    private static final Pattern RANGE = Pattern.compile("(\\d+)(?:-(\\d+))?");
    private static final Pattern TASKS = Pattern.compile("(\\d+)(?:\\(x(\\d+)\\))?");

    public SlurmAllocation {
        hosts = List.copyOf(hosts);
    }

    /** The allocation the environment names, if any: {@code SLURM_JOB_ID} and {@code SLURM_JOB_NODELIST} (or their old names). */
    public static Optional<SlurmAllocation> of(Map<String, String> env) {
        Optional<String> job = first(env, "SLURM_JOB_ID", "SLURM_JOBID");
        Optional<String> nodes = first(env, "SLURM_JOB_NODELIST", "SLURM_NODELIST");
        if (job.isEmpty() || nodes.isEmpty()) {
            return Optional.empty();
        }
        List<String> names = expand(nodes.get());
        List<Integer> tasks = first(env, "SLURM_TASKS_PER_NODE").map(SlurmAllocation::tasksPerNode)
                .orElseGet(() -> names.stream().map(n -> 1).toList());
        if (tasks.size() != names.size()) {
            throw new BadSettingException("SLURM_TASKS_PER_NODE", "names " + tasks.size() + " node(s), but SLURM_JOB_NODELIST "
                    + names.size() + " (" + nodes.get() + ")");
        }
        List<HostSlot> hosts = new ArrayList<>();
        for (int i = 0; i < names.size(); i++) {
            hosts.add(new HostSlot(names.get(i), tasks.get(i)));
        }
        return Optional.of(new SlurmAllocation(job.get(), hosts));
    }

    /** The names of the environment's Slurm variables: what mpirun's environment goes without. */
    public static List<String> variables(Map<String, String> env) {
        return env.keySet().stream().filter(name -> name.startsWith("SLURM_")).sorted().toList();
    }

    /**
     * Expands a Slurm host list: {@code node[1-3,7],spare[01-02],head} is node1, node2, node3,
     * node7, spare01, spare02, head. A range keeps the width of its first number's leading zeros;
     * several bracketed parts in one name multiply ({@code r[1-2]n[1-2]}).
     */
    public static List<String> expand(String hostlist) {
        List<String> names = new ArrayList<>();
        for (String item : splitTopLevel(hostlist.strip())) {
            if (item.isEmpty()) {
                throw bad(hostlist, "an empty name");
            }
            names.addAll(expandItem(item, hostlist));
        }
        if (names.isEmpty()) {
            throw bad(hostlist, "no node");
        }
        return names;
    }

    private static List<String> expandItem(String item, String hostlist) {
        int open = item.indexOf('[');
        if (open < 0) {
            if (item.indexOf(']') >= 0) {
                throw bad(hostlist, "']' without '['");
            }
            return List.of(item);
        }
        int close = item.indexOf(']', open);
        if (close < 0) {
            throw bad(hostlist, "'[' without ']'");
        }
        String prefix = item.substring(0, open);
        List<String> rest = expandItem(item.substring(close + 1), hostlist);
        List<String> names = new ArrayList<>();
        for (String range : item.substring(open + 1, close).split(",", -1)) {
            Matcher m = RANGE.matcher(range.strip());
            if (!m.matches()) {
                throw bad(hostlist, "'" + range + "' is no number or range");
            }
            String from = m.group(1);
            long first = Long.parseLong(from);
            long last = m.group(2) == null ? first : Long.parseLong(m.group(2));
            if (last < first || last - first > 100_000) {
                throw bad(hostlist, "'" + range + "' is no ascending range");
            }
            int width = from.length() > 1 && from.startsWith("0") ? from.length() : 0;
            for (long n = first; n <= last; n++) {
                String number = width > 0 ? String.format("%0" + width + "d", n) : Long.toString(n);
                for (String tail : rest) {
                    names.add(prefix + number + tail);
                }
            }
        }
        return names;
    }

    /** Splits at the commas outside brackets. */
    private static List<String> splitTopLevel(String hostlist) {
        List<String> items = new ArrayList<>();
        int depth = 0;
        int start = 0;
        for (int i = 0; i < hostlist.length(); i++) {
            char c = hostlist.charAt(i);
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            } else if (c == ',' && depth == 0) {
                items.add(hostlist.substring(start, i).strip());
                start = i + 1;
            }
        }
        items.add(hostlist.substring(start).strip());
        return items;
    }

    /** {@code 2(x3),1}: 2, 2, 2, 1. */
    static List<Integer> tasksPerNode(String spec) {
        List<Integer> tasks = new ArrayList<>();
        for (String part : spec.strip().split(",")) {
            Matcher m = TASKS.matcher(part.strip());
            if (!m.matches()) {
                throw new BadSettingException("SLURM_TASKS_PER_NODE", "'" + part + "' in '" + spec + "' is not N or N(xM)");
            }
            int count = Integer.parseInt(m.group(1));
            int times = m.group(2) == null ? 1 : Integer.parseInt(m.group(2));
            for (int i = 0; i < times; i++) {
                tasks.add(count);
            }
        }
        return tasks;
    }

    private static Optional<String> first(Map<String, String> env, String... names) {
        for (String name : names) {
            String value = env.get(name);
            if (value != null && !value.isBlank()) {
                return Optional.of(value.strip());
            }
        }
        return Optional.empty();
    }

    private static BadSettingException bad(String hostlist, String what) {
        return new BadSettingException("SLURM_JOB_NODELIST", "cannot read '" + hostlist + "': " + what);
    }
}
