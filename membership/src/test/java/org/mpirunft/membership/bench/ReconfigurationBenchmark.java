package org.mpirunft.membership.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.mpirunft.membership.cli.EventLine;
import org.mpirunft.membership.loopback.LoopbackCluster;
import org.mpirunft.membership.loopback.MemberProcess;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Measures, for groups of member processes on this machine, how long the group takes to agree
 * on a new view after a member is killed (SIGKILL):
 * <ul>
 *   <li><b>kill to all views</b>: from the kill until the last surviving member has delivered
 *       the view without the victim (its NODE_FAILED event);</li>
 *   <li><b>reconfiguration</b>: from the coordinator's verified suspicion (its NODE_SUSPECTED,
 *       raised as the suspicion goes to GMS) until the same last member has the view, i.e. the
 *       view change alone, without failure detection and verification; also the median over
 *       the members, since the last one is often just the last process the OS scheduled;</li>
 *   <li><b>detection</b>: from the kill to that suspicion (FD_SOCK2 plus VERIFY_SUSPECT2).</li>
 * </ul>
 * Times are {@link System#nanoTime()} of each process (CLOCK_MONOTONIC, shared by the processes
 * of one machine), taken when the member's listener receives the event. After each kill the
 * victim is restarted on the same port, so every run of a size has that many members.
 * This is a command, not a test: results go to a JSON or CSV file.
 */
@Command(name = "reconfiguration-benchmark", mixinStandardHelpOptions = true,
        description = "Kill a member of groups of 4..64 local processes and time the new view.")
public final class ReconfigurationBenchmark implements Callable<Integer> {
    @Option(names = "--sizes", split = ",", defaultValue = "4,8,16,32,64", description = "Group sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> sizes;

    @Option(names = "--runs", defaultValue = "5", description = "Kills per size (default: ${DEFAULT-VALUE}).")
    int runs;

    @Option(names = "--out", defaultValue = "target/reconfiguration-benchmark.json",
            description = "Result file; .csv for CSV, anything else JSON (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--profile", defaultValue = "production", description = "Member timeouts: production or fast (default: ${DEFAULT-VALUE}).")
    String profile;

    @Option(names = "--jvm-args", split = " ", defaultValue = "-Xmx64m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xss256k -Djava.net.preferIPv4Stack=true",
            description = "JVM options of each member (default: ${DEFAULT-VALUE}).")
    List<String> jvmArgs;

    @Option(names = "--member-args", split = " ", description = "More options for each member, e.g. "
            + "\"--heartbeat-interval 1s --heartbeat-timeout 20s\" where CPU starvation of many members on few cores "
            + "causes false suspicions (kills are detected by FD_SOCK2 either way).")
    List<String> memberArgs = List.of();

    @Option(names = "--start-batch", defaultValue = "8", description = "Members started together (default: ${DEFAULT-VALUE}).")
    int startBatch;

    @Option(names = "--settle", defaultValue = "2000", description = "Milliseconds to wait after the group formed, before the first kill (default: ${DEFAULT-VALUE}).")
    long settleMillis;

    @Option(names = "--seed", defaultValue = "1", description = "Seed for picking victims (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--echo", description = "Copy the members' output to stdout.")
    boolean echo;

    /** One kill. */
    public record Run(int members, int run, String victim, String coordinator, double killToAllViewsMs,
                      double reconfigurationMs, double reconfigurationMedianMemberMs, double detectionMs,
                      double killToFirstViewMs, double loadAverage) {
    }

    /** Medians and ranges of one size. */
    public record Summary(int members, int runs, double killToAllViewsMedianMs, double killToAllViewsMinMs,
                          double killToAllViewsMaxMs, double reconfigurationMedianMs, double reconfigurationMinMs,
                          double reconfigurationMaxMs, double reconfigurationMedianMemberMedianMs,
                          double detectionMedianMs, double loadAverageMedian) {
    }

    public record Report(String started, String host, int cores, String java, String profile, List<String> jvmArgs,
                         List<String> memberArgs, List<Summary> summaries, List<Run> runs, Map<Integer, String> failures) {
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ReconfigurationBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        Instant started = Instant.now();
        List<Run> all = new ArrayList<>();
        Map<Integer, String> failures = new TreeMap<>();
        Random random = new Random(seed);
        for (int size : sizes) {
            System.out.printf(Locale.ROOT, "== %d members%n", size);
            try {
                all.addAll(measure(size, random));
            } catch (Exception e) {
                System.out.println("   failed: " + e.getMessage());
                failures.put(size, String.valueOf(e.getMessage()));
            }
            write(new Report(started.toString(), hostName(), Runtime.getRuntime().availableProcessors(),
                    System.getProperty("java.version"), profile, jvmArgs, memberArgs, summarize(all), all, failures));
        }
        System.out.println("results in " + out.toAbsolutePath());
        return failures.isEmpty() ? 0 : 1;
    }

    private List<Run> measure(int size, Random random) throws Exception {
        LoopbackCluster.Builder builder = LoopbackCluster.builder().size(size).profile(profile).jvmArgs(jvmArgs)
                .startBatch(startBatch).echo(echo).verbose(false).faultInjection(false).memberArgs(memberArgs);
        Duration startTimeout = Duration.ofSeconds(60 + 8L * size);
        List<Run> results = new ArrayList<>();
        long formStart = System.nanoTime();
        try (LoopbackCluster cluster = LoopbackCluster.start(builder, startTimeout)) {
            System.out.printf(Locale.ROOT, "   formed in %.1f s%n", (System.nanoTime() - formStart) / 1e9);
            Thread.sleep(settleMillis);
            for (int run = 1; run <= runs; run++) {
                Run r = killOne(cluster, size, run, random);
                results.add(r);
                System.out.printf(Locale.ROOT, "   run %d: kill %s -> all views %.1f ms, reconfiguration %.1f ms (median member %.1f ms), "
                        + "detection %.1f ms (load %.1f)%n", run, r.victim(), r.killToAllViewsMs(), r.reconfigurationMs(),
                        r.reconfigurationMedianMemberMs(), r.detectionMs(), r.loadAverage());
                if (run < runs) {
                    cluster.replace(r.victim(), startTimeout);
                    Thread.sleep(settleMillis);
                }
            }
        }
        return results;
    }

    private static Run killOne(LoopbackCluster cluster, int size, int run, Random random) throws Exception {
        List<MemberProcess> members = cluster.members();
        String coordinator = members.getFirst().lastViewMembers().getFirst();
        List<MemberProcess> candidates = members.stream().filter(m -> !m.name().equals(coordinator)).toList();
        MemberProcess victim = candidates.get(random.nextInt(candidates.size()));
        List<MemberProcess> survivors = members.stream().filter(m -> m != victim).toList();

        // The machine's load, since other work on it shows in the times.
        double loadAverageBefore = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        long killedAt = System.nanoTime();
        victim.killNow();
        Duration timeout = Duration.ofSeconds(30);
        long lastView = Long.MIN_VALUE;
        long firstView = Long.MAX_VALUE;
        List<Long> viewTimes = new ArrayList<>();
        for (MemberProcess m : survivors) {
            EventLine failed = m.await(l -> l.event().equals("NODE_FAILED") && victim.name().equals(l.node())
                    && l.monoNanos() >= killedAt, timeout).orElseThrow(() -> new IllegalStateException(
                    m.name() + " did not report the failure of " + victim.name() + "\n" + m.stderrTail()));
            lastView = Math.max(lastView, failed.monoNanos());
            viewTimes.add(failed.monoNanos());
            firstView = Math.min(firstView, failed.monoNanos());
        }
        MemberProcess coord = cluster.member(coordinator);
        EventLine suspected = coord.await(l -> l.event().equals("NODE_SUSPECTED") && victim.name().equals(l.node())
                && l.monoNanos() >= killedAt, timeout).orElseThrow(() -> new IllegalStateException(
                coordinator + " did not report the suspicion of " + victim.name()));
        long suspectedAt = suspected.monoNanos();
        List<Double> reconfigurations = viewTimes.stream().map(t -> ms(t - suspectedAt)).sorted().toList();
        return new Run(size, run, victim.name(), coordinator, ms(lastView - killedAt), ms(lastView - suspectedAt),
                median(reconfigurations), ms(suspectedAt - killedAt), ms(firstView - killedAt), loadAverageBefore);
    }

    static List<Summary> summarize(List<Run> runs) {
        Map<Integer, List<Run>> bySize = runs.stream().collect(Collectors.groupingBy(Run::members, TreeMap::new, Collectors.toList()));
        List<Summary> summaries = new ArrayList<>();
        bySize.forEach((size, list) -> {
            List<Double> all = list.stream().map(Run::killToAllViewsMs).sorted().toList();
            List<Double> reconf = list.stream().map(Run::reconfigurationMs).sorted().toList();
            List<Double> detection = list.stream().map(Run::detectionMs).sorted().toList();
            List<Double> typical = list.stream().map(Run::reconfigurationMedianMemberMs).sorted().toList();
            List<Double> load = list.stream().map(Run::loadAverage).sorted().toList();
            summaries.add(new Summary(size, list.size(), median(all), all.getFirst(), all.getLast(), median(reconf),
                    reconf.getFirst(), reconf.getLast(), median(typical), median(detection), median(load)));
        });
        return summaries;
    }

    private void write(Report report) throws IOException {
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        if (out.toString().endsWith(".csv")) {
            try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out, StandardCharsets.UTF_8))) {
                w.println("members,run,victim,coordinator,kill_to_all_views_ms,reconfiguration_ms,"
                        + "reconfiguration_median_member_ms,detection_ms,kill_to_first_view_ms,load_average");
                for (Run r : report.runs()) {
                    w.printf(Locale.ROOT, "%d,%d,%s,%s,%.3f,%.3f,%.3f,%.3f,%.3f,%.2f%n", r.members(), r.run(), r.victim(),
                            r.coordinator(), r.killToAllViewsMs(), r.reconfigurationMs(), r.reconfigurationMedianMemberMs(),
                            r.detectionMs(), r.killToFirstViewMs(), r.loadAverage());
                }
            }
        } else {
            ObjectMapper mapper = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();
            mapper.writeValue(out.toFile(), report);
        }
    }

    private static double median(List<Double> sorted) {
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1e3) / 1e3;
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "unknown";
        }
    }
}
