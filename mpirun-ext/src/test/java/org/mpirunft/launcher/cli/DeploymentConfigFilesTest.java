package org.mpirunft.launcher.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.storage.StorageLevels;
import org.mpirunft.common.NoSpareAction;
import org.mpirunft.daemon.DaemonClient;
import org.mpirunft.daemon.FtdConfig;
import org.mpirunft.daemon.FtdConfigReader;
import org.mpirunft.launcher.LaunchSettings;
import org.mpirunft.membership.MembershipConfig;
import org.mpirunft.membership.NodeRole;
import org.mpirunft.membership.StackFile;
import org.mpirunft.scheduler.RecoveryMode;
import org.mpirunft.scheduler.config.SchedulerConfig;
import org.mpirunft.scheduler.config.SchedulerConfigReader;
import org.mpirunft.testkit.SimulatedCluster;

/**
 * The config files both deployments write are read by the Java readers that define their formats
 * (issue 49: one definition): {@code scripts/cluster}'s, rendered by
 * {@code scripts/lib/cluster-config.sh}, and the Ansible role ftd's, its templates rendered by
 * {@code scripts/lib/render-ftd-configs.py} as ansible-playbook would. Each file goes to its reader:
 * the daemon's {@code ftd.yaml} to {@link FtdConfigReader}, the scheduler's file to
 * {@link SchedulerConfigReader}, mpirun-ft's site config to {@link ConfigFile} and on into
 * {@link LaunchSettings}, as {@code mpirun-ft} reads it. The readers refuse unknown keys, so a key
 * renamed on one side fails here, naming the file and the key, and not on a cluster. The values
 * that say which node, secret, socket and schedule a file is about are checked to arrive.
 *
 * <p>Runs bash, and python3 with jinja2 and PyYAML (scripts/setup installs Debian's); without them
 * it fails, saying so.
 */
class DeploymentConfigFilesTest {
    private static final Path REPO = SimulatedCluster.repoRoot();
    private static final String CLUSTER_WRITER = "scripts/cluster (scripts/lib/cluster-config.sh)";
    private static final String ANSIBLE_WRITER = "the Ansible role ftd (ansible/roles/ftd/templates)";
    private static final Duration RENDER_TIMEOUT = Duration.ofSeconds(60);
    /** Debian's, where scripts/setup installs jinja2 and PyYAML; else the PATH's. */
    private static final String PYTHON = Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";

    @TempDir
    Path dir;

    // --- scripts/cluster up --daemons -----------------------------------------------------------

    @Test
    void clusterConfigFilesWithUpsDefaultsAreReadByTheirReaders() throws IOException {
        Path out = clusterConfigs(Map.of(), "ftc", "0", "stop-job", "", "node1 compute 10.213.0.1", "node2 compute 10.213.0.2",
                "spare1 spare 10.213.0.101", "head head 10.213.0.254");
        Read read = Read.all(out, CLUSTER_WRITER);
        assertEquals(List.of("nodes/head/ftd.yaml", "nodes/node1/ftd.yaml", "nodes/node2/ftd.yaml", "nodes/spare1/ftd.yaml"),
                List.copyOf(read.daemons.keySet()), "a daemon config per node");
        assertEquals(4, read.sites.size(), "a site config per node: " + read.sites.keySet());

        FtdConfig node1 = read.daemons.get("nodes/node1/ftd.yaml");
        assertEquals("node1", node1.node());
        assertEquals(NodeRole.COMPUTE, node1.role());
        assertEquals(1, node1.slots());
        assertEquals("mpirun-ft-ftc", node1.clusterName());
        assertEquals(InetAddress.getByName("10.213.0.1"), node1.bind());
        assertEquals(4, node1.members().size(), "every node's group address: " + node1.members());
        assertEquals(Path.of("/ftc/secret"), node1.secretFile());
        assertEquals(MembershipConfig.Profile.FAST, node1.profile());
        assertEquals(Path.of("/ftc/nodes/node1/ftd.sock"), node1.socket());
        assertEquals(Optional.of(Path.of("/ftc/scheduler.yaml")), node1.scheduler());
        assertEquals("job0", node1.transparent().orElseThrow().jobInterface());
        assertEquals(FtdConfig.Transparent.DEFAULT_TCP_RTO_MAX, node1.transparent().orElseThrow().tcpRtoMax());
        assertEquals(Optional.empty(), node1.health(), "no health check without --health-dir");
        assertEquals(NodeRole.SPARE, read.daemons.get("nodes/spare1/ftd.yaml").role());
        FtdConfig head = read.daemons.get("nodes/head/ftd.yaml");
        assertEquals(NodeRole.LAUNCHER, head.role(), "the head node launches");
        assertEquals(0, head.slots(), "the head node has no slots");

        SchedulerConfig scheduler = read.schedulers.get("scheduler.yaml");
        assertEquals(Optional.of(Duration.ofSeconds(30)), scheduler.checkpointInterval());
        assertEquals(Duration.ofHours(24), scheduler.mtbf());
        assertEquals(Duration.ofMinutes(1), scheduler.checkpointCost());
        assertEquals(0, scheduler.flushWriters());
        assertEquals(NoSpareAction.STOP_JOB, scheduler.whenNoSpare());

        LaunchSettings site = read.sites.get("nodes/node2/site/mpirun-ft.yaml");
        assertEquals(Path.of("/ftc/nodes/node2/ftd.sock"), site.socket(), "the node's own daemon");
        assertEquals(Optional.of("/ftc/ftd/bin/ftd agent"), site.launchAgent());
        assertEquals(Path.of("/shared/mpirun-ft"), site.checkpointDir().getParent(), "the user's directory in the site's storage");
        assertEquals(Optional.of(Path.of("/local/mpirun-ft")), site.localCheckpointDir().map(Path::getParent), "the user's directory in node-local storage");
    }

    @Test
    void clusterConfigFilesCarryUpsOptionsAndTheEnvironmentsSettings() throws IOException {
        Path out = clusterConfigs(Map.of("MPIRUN_FT_CHECKPOINT_INTERVAL", "2s", "MPIRUN_FT_CHECKPOINT_MTBF", "1h",
                "MPIRUN_FT_CHECKPOINT_COST", "5s", "MPIRUN_FT_TCP_RTO_MAX", "2s"), "t1", "2", "shrink", "/tmp/health",
                "node1 compute 10.213.0.1", "head head 10.213.0.254");
        Read read = Read.all(out, CLUSTER_WRITER);
        FtdConfig node1 = read.daemons.get("nodes/node1/ftd.yaml");
        assertEquals("mpirun-ft-t1", node1.clusterName());
        assertEquals(Duration.ofSeconds(2), node1.transparent().orElseThrow().tcpRtoMax(), "MPIRUN_FT_TCP_RTO_MAX");
        FtdConfig.HealthCheck health = node1.health().orElseThrow(() -> new AssertionError("--health-dir: a health check"));
        assertEquals("test ! -e /tmp/health/node1.degraded", health.command());
        assertEquals(Duration.ofSeconds(1), health.every());

        SchedulerConfig scheduler = read.schedulers.get("scheduler.yaml");
        assertEquals(Optional.of(Duration.ofSeconds(2)), scheduler.checkpointInterval());
        assertEquals(Duration.ofHours(1), scheduler.mtbf());
        assertEquals(Duration.ofSeconds(5), scheduler.checkpointCost());
        assertEquals(2, scheduler.flushWriters(), "--flush-writers");
        assertEquals(NoSpareAction.SHRINK, scheduler.whenNoSpare(), "--when-no-spare");
    }

    // --- The Ansible role ftd -------------------------------------------------------------------

    @Test
    void ansibleRolesDefaultsAreReadByTheReaders() throws IOException {
        Read read = Read.all(ansibleConfigs(inventory("defaults", "")), ANSIBLE_WRITER);
        assertEquals(List.of("c1", "c2", "l1", "s1"), hostsOf(read.daemons), "every host of the play");
        FtdConfig c1 = read.daemons.get("c1/ftd.yaml");
        assertEquals("c1", c1.node());
        assertEquals(NodeRole.COMPUTE, c1.role());
        assertEquals(InetAddress.getByName("192.0.2.1"), c1.bind(), "no facts: the host's ansible_host");
        assertEquals(4, c1.members().size(), "every host of the group: " + c1.members());
        assertEquals(7801, c1.peerPort());
        assertEquals(Path.of("/etc/mpirun-ft/secret"), c1.secretFile());
        assertTrue(c1.encryption(), "encrypted by default");
        assertEquals(MembershipConfig.Profile.PRODUCTION, c1.profile());
        assertEquals(Optional.of(Path.of("/etc/mpirun-ft/cluster.yaml")), c1.scheduler());
        assertEquals(Optional.empty(), c1.health());
        assertEquals(Optional.empty(), c1.stack());
        assertEquals(Optional.empty(), c1.operators());
        assertEquals(NodeRole.SPARE, read.daemons.get("s1/ftd.yaml").role());
        assertEquals(NodeRole.LAUNCHER, read.daemons.get("l1/ftd.yaml").role());
        assertEquals(0, read.daemons.get("l1/ftd.yaml").slots());

        SchedulerConfig scheduler = read.schedulers.get("c1/cluster.yaml");
        assertTrue(scheduler.autoInterval(), "interval auto");
        assertEquals(NoSpareAction.STOP_JOB, scheduler.whenNoSpare());
        assertEquals(Path.of("/shared/mpirun-ft"), scheduler.sharedStorage());

        LaunchSettings site = read.sites.get("c2/mpirun-ft.yaml");
        assertEquals(Path.of("/run/mpirun-ft/ftd.sock"), site.socket(), "the daemon's control socket");
        assertEquals(Optional.of("/opt/mpirun-ft/current/bin/ftd agent"), site.launchAgent());
        assertEquals("/opt/mpirun-ft/openmpi-5.0.7-ulfm-prrte5/bin/mpirun", site.mpirun(), "the openmpi role's prefix");
        assertEquals(Path.of("/shared/mpirun-ft"), site.checkpointDir().getParent(), "the user's directory in the site's storage");
        assertEquals(Optional.of(Path.of("/var/tmp/mpirun-ft")), site.localCheckpointDir().map(Path::getParent), "the user's directory in node-local storage");
    }

    @Test
    void ansibleExampleInventoryIsReadByTheReaders() throws IOException {
        Read read = Read.all(ansibleConfigs(REPO.resolve("ansible/inventories/example/hosts.yml")), ANSIBLE_WRITER);
        assertEquals(List.of("head", "node1", "node2", "node3", "node4", "spare1"), hostsOf(read.daemons));
        assertEquals(NodeRole.LAUNCHER, read.daemons.get("head/ftd.yaml").role());
        assertEquals(InetAddress.getByName("10.0.0.13"), read.daemons.get("node3/ftd.yaml").bind());
        assertEquals(Optional.of(Duration.ofMinutes(10)), read.schedulers.get("node3/cluster.yaml").checkpointInterval(),
                "the example's group_vars");
    }

    @Test
    void ansibleTestsInventoryIsReadByTheReaders() throws IOException {
        Path inventory = dir.resolve("ansible-test-inventory");
        run(List.of("bash", "-c", "set -euo pipefail; . scripts/lib/ansible-test-inventory.sh; ansible_test_inventory \"$@\"",
                "ansible-test-inventory", inventory.toString(), "/x/ssh", "/x/openmpi", "/x/archives", "/x/mpirun-ft-dist.tar.gz",
                "h1=10.214.0.1", "h2=10.214.0.2", "h3=10.214.0.3", "h4=10.214.0.4", "h5=10.214.0.5"), Map.of());
        Read read = Read.all(ansibleConfigs(inventory), ANSIBLE_WRITER);
        assertEquals(List.of("h1", "h2", "h3", "h4", "h5"), hostsOf(read.daemons));
        FtdConfig h5 = read.daemons.get("h5/ftd.yaml");
        assertEquals(NodeRole.SPARE, h5.role(), "the last host is the spare");
        assertEquals(InetAddress.getByName("10.214.0.5"), h5.bind());
        assertEquals(MembershipConfig.Profile.FAST, h5.profile());
        assertEquals(Optional.of(Duration.ofSeconds(30)), read.schedulers.get("h1/cluster.yaml").checkpointInterval());
    }

    @Test
    void ansibleRoleWithEveryOptionalSettingIsReadByTheReaders() throws IOException {
        Path stack = Files.writeString(dir.resolve("jgroups.xml"), StackFile.shippedXml());
        Read read = Read.all(ansibleConfigs(inventory("every-setting", """
                  vars:
                    ftd_cluster_name: site-a
                    # The reader builds the group's stack (group.stack) with the node's address: one of this machine's.
                    ftd_bind_address: 127.0.0.1
                    ftd_port: 7810
                    ftd_peer_port: 7900
                    ftd_members: [192.0.2.1:7810, 192.0.2.2:7810, 192.0.2.3, 192.0.2.4:7810]
                    ftd_encryption: false
                    ftd_operators_group: hpcadmin
                    ftd_profile: fast
                    ftd_jgroups_stack: files/jgroups.xml
                    ftd_jgroups_stack_file: %s
                    ftd_checkpoint_interval: 15m
                    ftd_checkpoint_mtbf: 12h
                    ftd_checkpoint_cost: 30s
                    ftd_storage_shared: /gpfs/mpirun-ft
                    ftd_storage_flush_writers: 2
                    ftd_when_no_spare: shrink
                    ftd_health_command: /usr/sbin/node-health --quiet
                    ftd_health_every: 10s
                    ftd_health_timeout: 5s
                    ftd_health_threshold: 85
                    ftd_launcher_settings: {spares: 2, checkpoint-levels: "partner,shared:8", recovery: pause}
                    ftd_config_dir: /etc/site-a
                    ftd_run_dir: /run/site-a
                    openmpi_prefix: /opt/ompi
                """.formatted(stack))), ANSIBLE_WRITER);
        FtdConfig c1 = read.daemons.get("c1/ftd.yaml");
        assertEquals("site-a", c1.clusterName());
        assertEquals(7810, c1.groupPort());
        assertEquals(7900, c1.peerPort());
        assertEquals(7810, c1.members().get(2).getPort(), "a member without a port is on the group's");
        assertFalse(c1.encryption());
        assertEquals(Optional.of("hpcadmin"), c1.operators());
        assertEquals(Optional.of(stack), c1.stack());
        assertEquals(Path.of("/etc/site-a/secret"), c1.secretFile());
        assertEquals(Path.of("/run/site-a/ftd.sock"), c1.socket());
        FtdConfig.HealthCheck health = c1.health().orElseThrow(() -> new AssertionError("ftd_health_command: a health check"));
        assertEquals("/usr/sbin/node-health --quiet", health.command());
        assertEquals(Duration.ofSeconds(10), health.every());
        assertEquals(Duration.ofSeconds(5), health.timeout());
        assertEquals(OptionalDouble.of(85), health.threshold());

        SchedulerConfig scheduler = read.schedulers.get("c1/cluster.yaml");
        assertEquals(Optional.of(Duration.ofMinutes(15)), scheduler.checkpointInterval());
        assertEquals(Duration.ofHours(12), scheduler.mtbf());
        assertEquals(Duration.ofSeconds(30), scheduler.checkpointCost());
        assertEquals(Path.of("/gpfs/mpirun-ft"), scheduler.sharedStorage());
        assertEquals(2, scheduler.flushWriters());
        assertEquals(NoSpareAction.SHRINK, scheduler.whenNoSpare());

        LaunchSettings site = read.sites.get("c1/mpirun-ft.yaml");
        assertEquals(Path.of("/run/site-a/ftd.sock"), site.socket());
        assertEquals("/opt/ompi/bin/mpirun", site.mpirun());
        assertEquals(Path.of("/gpfs/mpirun-ft"), site.checkpointDir().getParent(), "the user's directory in the site's storage");
        assertEquals(2, site.spares(), "ftd_launcher_settings");
        assertEquals(RecoveryMode.PAUSE, site.recovery(), "ftd_launcher_settings");
        assertEquals(StorageLevels.parse("checkpoint-levels", "partner,shared:8"), site.checkpointLevels(), "ftd_launcher_settings");
    }

    // --- Rendering --------------------------------------------------------------------------------

    /** scripts/cluster's files for {@code nodes} (its nodes.list lines), with up's options and the environment given. */
    private Path clusterConfigs(Map<String, String> env, String cluster, String flushWriters, String whenNoSpare, String healthDir,
                                String... nodes) throws IOException {
        Path out = Files.createDirectories(dir.resolve("cluster"));
        Files.write(out.resolve("nodes.list"), List.of(nodes));
        run(List.of("bash", "-c", "set -euo pipefail; . scripts/lib/cluster-config.sh; cluster_write_configs \"$@\"", "cluster-config",
                out.toString(), cluster, flushWriters, whenNoSpare, healthDir), env);
        return out;
    }

    /** An inventory of two compute hosts, a spare and a launcher, with {@code allVars} (YAML under {@code all:}). */
    private Path inventory(String name, String allVars) throws IOException {
        Path inventory = Files.createDirectories(dir.resolve(name));
        Files.writeString(inventory.resolve("hosts.yml"), "all:\n" + allVars + """
                  children:
                    mpirun_ft:
                      children:
                        mpirun_ft_compute:
                          hosts:
                            c1: {ansible_host: 192.0.2.1}
                            c2: {ansible_host: 192.0.2.2}
                        mpirun_ft_spare:
                          hosts:
                            s1: {ansible_host: 192.0.2.3}
                        mpirun_ft_launcher:
                          hosts:
                            l1: {ansible_host: 192.0.2.4}
                """);
        return inventory;
    }

    /** The role's config files for every host of {@code inventory}, in OUT/HOST/. */
    private Path ansibleConfigs(Path inventory) throws IOException {
        Path out = dir.resolve("ansible-" + inventory.getFileName());
        run(List.of(PYTHON, "scripts/lib/render-ftd-configs.py", out.toString(), inventory.toString()), Map.of());
        return out;
    }

    /** Runs {@code command} in the repository with {@code env} and no MPIRUN_FT_* variable of this JVM's; fails on a non-zero exit. */
    private void run(List<String> command, Map<String, String> env) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(REPO.toFile()).redirectErrorStream(true);
        builder.environment().keySet().removeIf(name -> name.startsWith("MPIRUN_FT_"));
        builder.environment().putAll(env);
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new AssertionError(command.getFirst() + " is needed to render the deployments' config files"
                    + (command.getFirst().equals(PYTHON) ? " (python3 with jinja2 and PyYAML: apt-get install python3-jinja2 python3-yaml)" : "")
                    + ": " + e.getMessage(), e);
        }
        process.getOutputStream().close();
        String output;
        try {
            if (!process.waitFor(RENDER_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail(String.join(" ", command) + " did not end within " + RENDER_TIMEOUT.toSeconds() + " s");
            }
            output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
        assertEquals(0, process.exitValue(), String.join(" ", command) + " failed: " + output.strip());
    }

    private static List<String> hostsOf(Map<String, FtdConfig> daemons) {
        return daemons.keySet().stream().map(file -> file.substring(0, file.indexOf('/'))).toList();
    }

    /** Every YAML file under a rendered tree, read by its reader; keyed by its path in the tree, in order. */
    private record Read(Map<String, FtdConfig> daemons, Map<String, SchedulerConfig> schedulers, Map<String, LaunchSettings> sites) {
        static Read all(Path root, String writer) throws IOException {
            Read read = new Read(new TreeMap<>(), new TreeMap<>(), new TreeMap<>());
            List<Path> files;
            try (Stream<Path> walk = Files.walk(root)) {
                files = walk.filter(file -> file.toString().endsWith(".yaml")).sorted().toList();
            }
            assertFalse(files.isEmpty(), "no config file rendered under " + root);
            List<String> unread = new ArrayList<>();
            for (Path file : files) {
                String key = root.relativize(file).toString();
                try {
                    switch (file.getFileName().toString()) {
                        case "ftd.yaml" -> read.daemons.put(key, FtdConfigReader.read(file));
                        case "scheduler.yaml", "cluster.yaml" -> read.schedulers.put(key, SchedulerConfigReader.read(file));
                        case "mpirun-ft.yaml" -> read.sites.put(key, siteSettings(file));
                        default -> unread.add(key);
                    }
                } catch (RuntimeException e) {
                    throw new AssertionError(writer + " writes a config file its reader refuses: " + e.getMessage(), e);
                }
            }
            assertEquals(List.of(), unread, writer + " writes config files this test has no reader for (add the file's reader to Read.all)");
            return read;
        }

        /** The site config as mpirun-ft reads it for a run with no option given. */
        private static LaunchSettings siteSettings(Path file) {
            RunCommand run = new RunCommand();
            PrintStream discard = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
            run.context = new CliContext(discard, discard, null, Map.of(), DaemonClient::new, Optional.empty(), Clock.systemUTC(),
                    Optional.of(file));
            run.program = List.of("a.out");
            return run.settings();
        }
    }
}
