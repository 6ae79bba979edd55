package org.mpirunft.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.CheckpointSchedule;
import org.mpirunft.scheduler.RecoveryMode;

class MpirunCommandTest {
    private static final HostPlan PLAN = new HostPlan(
            List.of(new HostSlot("node1", 1), new HostSlot("node2", 1)), List.of(new HostSlot("spare1", 1)), 2,
            HostPlan.Mapping.BY_SLOT);

    private static Map<String, String> env() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("MPIRUN_FT_JOB", "j1");
        env.put("MPIRUN_FT_SPARES", "spare1");
        return env;
    }

    @Test
    void transparentModeIsPlainOpenMpiOnTheJobNetworkWithNoNodeDaemonOnASpare() {
        MpirunCommand command = MpirunCommand.builder()
                .mpirun("mpirun")
                .ulfm(false)
                .transparent("job0")
                .hosts(PLAN)
                .passThrough(List.of("--mca", "btl_tcp_if_include", "ib0"))
                .program(List.of("./ring"))
                .build();
        assertEquals(List.of("mpirun",
                "--mca", "coll", "^han",
                "--prtemca", "plm_ssh_no_tree_spawn", "1",
                "--bind-to", "none",
                "--mca", "mpi_yield_when_idle", "1",
                "--mca", "btl", "self,tcp",
                "--mca", "oob_tcp_if_include", "job0",
                "--prtemca", "oob_tcp_if_include", "job0",
                "--host", "node1:1,node2:1", "-np", "2",
                "--mca", "btl_tcp_if_include", "ib0",
                "./ring"), command.argv(), "the user's own interface wins; spares stay out of --host");
        Path out = Path.of("/tmp/mpirun-ft-j1-1/stdout");
        Path err = Path.of("/tmp/mpirun-ft-j1-1/stderr");
        List<String> redirected = command.redirected(out, err).argv();
        assertEquals(List.of("/bin/sh", "-c", "exec setsid -w \"$@\" < /dev/null > '/tmp/mpirun-ft-j1-1/stdout' 2> '/tmp/mpirun-ft-j1-1/stderr'",
                "mpirun-ft", "mpirun"), redirected.subList(0, 5), "a shell that execs mpirun in a session of its own with its streams on the named pipes");
        assertEquals(command.argv(), redirected.subList(4, redirected.size()));
    }

    @Test
    void buildsTheArgvRecoveryNeedsWithComputeHostsFirstThenSpares() {
        MpirunCommand command = MpirunCommand.builder()
                .mpirun("/opt/ompi/bin/mpirun")
                .launchAgent("/opt/mpirun-ft/bin/ftd agent")
                .hosts(PLAN)
                .rankEnvironment(env())
                .passThrough(List.of("--mca", "btl", "tcp,self", "-x", "FOO", "--oversubscribe"))
                .program(List.of("java", "-cp", "x.jar", "Main", "--iterations", "10"))
                .build();
        assertEquals(List.of("/opt/ompi/bin/mpirun",
                "--with-ft", "ulfm",
                "--mca", "coll", "^han",
                "--mca", "coll_ftagree_era_topology", "2",
                "--prtemca", "plm_ssh_agent", "/opt/mpirun-ft/bin/ftd agent",
                "--prtemca", "plm_ssh_no_tree_spawn", "1",
                "--prtemca", "pmix_terminate_connected", "0",
                "--bind-to", "none",
                "--mca", "mpi_yield_when_idle", "1",
                "--host", "node1:1,node2:1,spare1:1", "-np", "2",
                "-x", "MPIRUN_FT_JOB=j1", "-x", "MPIRUN_FT_SPARES=spare1",
                "--mca", "btl", "tcp,self", "-x", "FOO", "--oversubscribe",
                "java", "-cp", "x.jar", "Main", "--iterations", "10"), command.argv());
    }

    @Test
    void warmSparesAreASecondAppContextOnTheSparesWithTheRankEnvironment() {
        HostPlan plan = new HostPlan(List.of(new HostSlot("node1", 1), new HostSlot("node2", 1)),
                List.of(new HostSlot("spare1", 1), new HostSlot("spare2", 1)), 2, HostPlan.Mapping.BY_SLOT);
        List<String> argv = MpirunCommand.builder().hosts(plan).rankEnvironment(Map.of("MPIRUN_FT_WARM_SPARES", "2"))
                .program(List.of("java", "Main")).warmSpares(2).build().argv();
        int colon = argv.indexOf(":");
        assertEquals(List.of("--host", "node1:1,node2:1,spare1:1,spare2:1", "-np", "2", "-x", "MPIRUN_FT_WARM_SPARES=2", "java", "Main"),
                argv.subList(argv.indexOf("--host"), colon), "the application's ranks, as without warm spares");
        assertEquals(List.of(":", "--host", "spare1:1,spare2:1", "-np", "2", "-x", "MPIRUN_FT_WARM_SPARES=2",
                        "-x", "MPIRUN_FT_WARM_SPARE=1", "java", "Main"),
                argv.subList(colon, argv.size()), "one warm spare per spare slot, on the spares only");
        assertThrows(IllegalStateException.class,
                () -> MpirunCommand.builder().hosts(plan).program(List.of("a.out")).warmSpares(3).build());
    }

    @Test
    void aRestartModeGetsNoWarmSpares() {
        HostPlan plan = new HostPlan(List.of(new HostSlot("node1", 1)), List.of(new HostSlot("spare1", 2)), 1, HostPlan.Mapping.BY_SLOT);
        LaunchSettings.Builder settings = LaunchSettings.builder().job("j").hosts(List.of(new HostSlot("node1", 1)))
                .program(List.of("a.out"));
        assertEquals(2, settings.build().warmSpareRanks(plan, true), "pause mode, a rank library program: one per spare slot");
        assertEquals(0, settings.warmSpares(WarmSpareMode.OFF).build().warmSpareRanks(plan, true), "--warm-spares off");
        assertEquals(0, settings.warmSpares(WarmSpareMode.ON).recovery(RecoveryMode.RESTART).build().warmSpareRanks(plan, true));
        assertEquals(0, settings.recovery(RecoveryMode.FULL_RESTART).build().warmSpareRanks(plan, true));
    }

    @Test
    void byDefaultOnlyAProgramKnownToUseTheRankLibraryGetsWarmSpares() {
        HostPlan plan = new HostPlan(List.of(new HostSlot("node1", 1)), List.of(new HostSlot("spare1", 2)), 1, HostPlan.Mapping.BY_SLOT);
        HostPlan noSpare = new HostPlan(List.of(new HostSlot("node1", 1)), List.of(), 1, HostPlan.Mapping.BY_SLOT);
        LaunchSettings.Builder settings = LaunchSettings.builder().job("j").program(List.of("a.out"));
        assertEquals(WarmSpareMode.AUTO, settings.build().warmSpares());
        assertEquals(0, settings.build().warmSpareRanks(plan, false), "a program not known to hide them: its world stays -np");
        assertEquals(true, settings.build().warmSparesAskProgram(plan));
        assertEquals(false, settings.build().warmSparesAskProgram(noSpare), "no spare, nothing to ask");
        assertEquals(2, settings.warmSpares(WarmSpareMode.ON).build().warmSpareRanks(plan, false), "--warm-spares on: the user says it does");
        assertEquals(false, settings.build().warmSparesAskProgram(plan), "on decides alone");
        assertEquals(false, settings.warmSpares(WarmSpareMode.AUTO).recovery(RecoveryMode.TRANSPARENT).build().warmSparesAskProgram(plan));
    }

    @Test
    void warmSparesTakeAutoOnOrOffAndNameABadValue() {
        assertEquals(WarmSpareMode.AUTO, WarmSpareMode.parse("--warm-spares", " Auto "));
        assertEquals(WarmSpareMode.ON, WarmSpareMode.parse("warm-spares", "true"), "YAML 1.1 reads on as true");
        assertEquals(WarmSpareMode.OFF, WarmSpareMode.parse("warm-spares", "false"));
        BadSettingException e = assertThrows(BadSettingException.class, () -> WarmSpareMode.parse("--warm-spares", "always"));
        assertEquals("--warm-spares", e.setting());
        assertEquals(true, e.getMessage().contains("must be 'auto', 'on' or 'off', got 'always'"), e.getMessage());
    }

    @Test
    void leavesUlfmOffForWholeJobRestarts() {
        List<String> argv = MpirunCommand.builder().ulfm(false).hosts(PLAN).program(List.of("a.out")).build().argv();
        assertEquals(List.of("mpirun",
                "--mca", "coll", "^han",
                "--prtemca", "plm_ssh_no_tree_spawn", "1",
                "--bind-to", "none",
                "--mca", "mpi_yield_when_idle", "1",
                "--host", "node1:1,node2:1,spare1:1", "-np", "2",
                "a.out"), argv);
    }

    @Test
    void theUsersOwnSettingsReplaceTheDefaultsInsteadOfRepeatingThem() {
        List<String> user = List.of("--bind-to=core", "--mca", "coll", "^tuned", "--prtemca", "plm_ssh_agent", "ssh",
                "-mca", "mpi_yield_when_idle", "0", "--with-ft", "ulfm", "--prtemca", "plm_ssh_no_tree_spawn", "0",
                "--prtemca", "pmix_terminate_connected", "1", "--mca", "coll_ftagree_era_topology", "1");
        List<String> argv = MpirunCommand.builder().launchAgent("ftd agent").hosts(PLAN).passThrough(user)
                .program(List.of("a.out")).build().argv();
        List<String> expected = new java.util.ArrayList<>(List.of("mpirun", "--host", "node1:1,node2:1,spare1:1", "-np", "2"));
        expected.addAll(user);
        expected.add("a.out");
        assertEquals(expected, argv);
    }

    @Test
    void spareSlotsKeepTheirCountInTheHostList() {
        HostPlan plan = new HostPlan(List.of(new HostSlot("node1", 2), new HostSlot("node2", 2)),
                List.of(new HostSlot("spare1", 2)), 4, HostPlan.Mapping.BY_SLOT);
        List<String> argv = MpirunCommand.builder().hosts(plan).program(List.of("a.out")).build().argv();
        int host = argv.indexOf("--host");
        assertEquals("node1:2,node2:2,spare1:2", argv.get(host + 1));
        assertEquals(List.of("spare1", "spare1"), plan.spareSlots(), "one MPIRUN_FT_SPARES entry per spare slot");
    }

    @Test
    void refusesAJobWithoutAProgram() {
        BadSettingException e = assertThrows(BadSettingException.class, () -> MpirunCommand.builder().hosts(PLAN).build());
        assertEquals("PROGRAM", e.setting());
    }

    @Test
    void refusesAnEnvironmentNameMpirunWouldMisread() {
        assertThrows(IllegalArgumentException.class,
                () -> MpirunCommand.builder().hosts(PLAN).rankEnvironment(Map.of("A=B", "c")));
    }

    @Test
    void exportsTheRankLibrarysVariablesUnderFtConfigsNames() {
        LaunchSettings settings = LaunchSettings.builder().job("j7").checkpointDir(java.nio.file.Paths.get("/shared/ck")).user("alice")
                .checkpointSchedule(CheckpointSchedule.every(java.time.Duration.ofSeconds(30))).program(List.of("a.out")).build();
        assertEquals(Map.of(
                        "MPIRUN_FT_JOB", "j7",
                        "MPIRUN_FT_SHARED_DIR", "/shared/ck/alice",
                        "MPIRUN_FT_SPARES", "spare1",
                        "MPIRUN_FT_WARM_SPARES", "1"),
                RankEnvironment.of(settings, PLAN, 1), "the schedule goes to the scheduler, not to the ranks");
        LaunchSettings restart = LaunchSettings.builder().job("j7").recovery(RecoveryMode.RESTART).program(List.of("a.out")).build();
        assertEquals(false, RankEnvironment.of(restart, PLAN, 0).containsKey("MPIRUN_FT_SPARES"),
                "in restart mode the ranks must not repair in place");
    }
}
