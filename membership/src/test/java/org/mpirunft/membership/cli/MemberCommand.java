package org.mpirunft.membership.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicInteger;
import org.mpirunft.membership.ClusterView;
import org.mpirunft.membership.Discovery;
import org.mpirunft.membership.LoadSource;
import org.mpirunft.membership.Membership;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.MembershipEvent;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.internal.MembershipImpl;
import org.mpirunft.membership.internal.PartitionSimulator;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code membership member}: joins the group, prints every event, and takes commands on stdin
 * (one per line) until stdin closes or {@code exit}; then leaves gracefully.
 *
 * <pre>
 * view                 print the current view
 * stack                print the effective JGroups stack (XML)
 * slots N              set the slots in use and publish the load now
 * leave                leave the group (the others see a leave)
 * join                 join again, as a new incarnation
 * isolate a,b          (--fault-injection) drop all messages from nodes a and b
 * heal                 (--fault-injection) stop dropping
 * exit                 leave and exit
 * </pre>
 */
@Command(name = "member", mixinStandardHelpOptions = true,
        description = "Run a member: join, print events and the view, obey commands on stdin.")
final class MemberCommand implements Callable<Integer> {
    static final String SECRET_ENV = "MPIRUNFT_CLUSTER_SECRET";

    @Spec
    CommandSpec spec;

    @Mixin
    Verbosity verbosity = new Verbosity();

    @Mixin
    NodeOptions node = new NodeOptions();

    @Option(names = "--control", converter = HostPortConverter.class,
            description = "host:port of this node's daemon control endpoint (default: bind address, port 0).")
    InetSocketAddress control;

    @Option(names = "--multicast", converter = HostPortConverter.class,
            description = "Multicast discovery instead of --peers: group:port.")
    InetSocketAddress multicast;

    @Option(names = "--secret-file", description = "File holding the cluster secret (default: environment variable " + SECRET_ENV + ").")
    Path secretFile;

    @Option(names = "--encrypt", description = "Encrypt message payloads (SYM_ENCRYPT, key derived from the secret).")
    boolean encrypt;

    @Mixin
    TimeoutOptions timeouts;

    @Option(names = "--events", defaultValue = "text", description = "Output format: text or json (default: ${DEFAULT-VALUE}).")
    String events;

    @Option(names = "--fault-injection", description = "Allow the isolate and heal commands (simulated partitions; tests and demos only).")
    boolean faultInjection;

    private final AtomicInteger slotsInUse = new AtomicInteger();
    private PrintWriter out;
    private boolean json;

    @Override
    public Integer call() throws Exception {
        verbosity.apply();
        out = spec.commandLine().getOut();
        json = events.equalsIgnoreCase("json");
        MembershipConfig config = config();
        NodeMetadata metadata = control != null ? node.metadata(control) : node.metadata(0);
        Membership membership = Membership.create(config, metadata, LoadSource.system(slotsInUse::get));
        membership.addListener(this::print);
        Thread hook = new Thread(membership::close, "membership-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        membership.start();
        emit(EventLine.status("JOINED", node.name(), membership.view(), membership.memberId()));
        try {
            commandLoop(membership, System.in);
        } finally {
            membership.close();
            emit(EventLine.status("LEFT", node.name(), ClusterView.NONE, null));
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // Already shutting down: the hook runs (and close is idempotent).
            }
        }
        return MembershipCli.EXIT_OK;
    }

    private MembershipConfig config() throws IOException {
        MembershipConfig.Builder b = node.config(readSecret()).encryption(encrypt);
        if (multicast != null) {
            b.discovery(Discovery.multicast(multicast.getAddress(), multicast.getPort()));
        }
        return timeouts.applyTo(b).build();
    }

    private byte[] readSecret() throws IOException {
        if (secretFile != null) {
            return Files.readString(secretFile, StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8);
        }
        String fromEnv = System.getenv(SECRET_ENV);
        if (fromEnv == null || fromEnv.isBlank()) {
            throw new IllegalArgumentException("no cluster secret: use --secret-file or set " + SECRET_ENV);
        }
        return fromEnv.strip().getBytes(StandardCharsets.UTF_8);
    }

    private void commandLoop(Membership membership, InputStream in) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            String[] words = line.strip().split("\\s+");
            if (words[0].isEmpty()) {
                continue;
            }
            try {
                if (!command(membership, words)) {
                    return;
                }
            } catch (RuntimeException e) {
                emit(EventLine.status("ERROR", node.name(), membership.view(), line + ": " + e.getMessage()));
            }
        }
    }

    private boolean command(Membership membership, String[] words) throws Exception {
        switch (words[0]) {
            case "view" -> emit(EventLine.status("VIEW", node.name(), membership.view(), membership.describeView()));
            case "stack" -> emit(EventLine.status("OK", node.name(), membership.view(), MembershipImpl.of(membership).describeStack()));
            case "slots" -> {
                slotsInUse.set(Integer.parseInt(words[1]));
                membership.publishLoadNow();
                emit(EventLine.status("OK", node.name(), membership.view(), "slots in use " + slotsInUse.get()));
            }
            case "leave" -> {
                membership.leave();
                emit(EventLine.status("LEFT", node.name(), ClusterView.NONE, null));
            }
            case "join" -> {
                membership.start();
                emit(EventLine.status("JOINED", node.name(), membership.view(), membership.memberId()));
            }
            case "isolate", "heal" -> {
                if (!faultInjection) {
                    throw new IllegalStateException("simulated partitions need --fault-injection");
                }
                PartitionSimulator simulator = PartitionSimulator.of(membership);
                if (words[0].equals("heal")) {
                    simulator.heal();
                } else {
                    simulator.isolateFrom(Arrays.asList(words[1].split(",")));
                }
                emit(EventLine.status("OK", node.name(), membership.view(), String.join(" ", words)));
            }
            case "flood" -> {
                // flood NODE MB: MB messages of 1 MB to NODE, off this thread: once the link's
                // buffers are full (NODE stopped reading), the transport's sender blocks.
                String target = words[1];
                int megabytes = Integer.parseInt(words[2]);
                Thread.ofPlatform().daemon().name("flood-" + target).start(() -> {
                    byte[] payload = new byte[1 << 20];
                    for (int i = 0; i < megabytes; i++) {
                        membership.send(target, payload);
                    }
                });
                emit(EventLine.status("OK", node.name(), membership.view(), "flooding " + target + " with " + megabytes + " MB"));
            }
            case "exit" -> {
                return false;
            }
            default -> throw new IllegalArgumentException("unknown command (view, stack, slots N, leave, join, isolate a,b, heal, flood node MB, exit)");
        }
        return true;
    }

    private void print(MembershipEvent event) {
        emit(EventLine.of(node.name(), event, System.nanoTime()));
    }

    private synchronized void emit(EventLine line) {
        out.println(json ? line.toJson() : line.toText());
        out.flush();
    }
}
