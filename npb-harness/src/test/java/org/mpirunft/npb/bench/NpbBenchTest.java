package org.mpirunft.npb.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NpbBenchTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "--kernels ep,xx|kernel must be one of ep, cg, is, mg, ft, bt, lu, sp, got 'xx'",
            "--classes S,Q|class must be one of S, W, A, B, C, got 'Q'",
            "--variants baseline,foo|variant must be one of baseline, one-checkpoint, periodic, pause, pause-cold, restart, full-restart, daly, migration, transparent, got 'foo'",
            "--repeats 0|--repeats must be >= 1, got 0",
            "--nodes 0|--nodes must be from 1 to 64, got 0",
            "--nodes 2 --fail-rank 2|--fail-rank 2 does not exist on 2 nodes",
            "--spares 0|the pause, restart and daly variants need --spares 1 or more",
            "--fail-at 1.5|--fail-at must be a fraction between 0 and 1, got 1.5",
            "--mtbf soon|--mtbf: must be a duration such as 30s, 10m, 1h, 500ms or PT30S, got 'soon'",
            "--pace-ms 10 --pace-run 4s|give --pace-ms or --pace-run, not both",
            "--kernels cg --classes S --nodes 3|cg class S cannot run on 3 ranks",
            "--kernels mg --classes S --checkpoint-every 4 --variants periodic|--checkpoint-every 4 leaves no checkpoint",
            "--rank-heap lots|--rank-heap must be a size such as 4g or 3500m, got 'lots'",
            "--rank-heap 32m|--rank-heap must be at least 64m, got 32m",
            "--aot-cache maybe|--aot-cache must be 'on' or 'off', got 'maybe'",
            "--repeats many|Invalid value for option '--repeats'",
            "--storage full= --storage full=--checkpoint-compression~zstd|--storage label 'full' given twice",
            "--storage pi=--checkpoint-levels~partner~--checkpoint-speed~9|--storage pi: unknown option '--checkpoint-speed'",
            "--storage pi=--checkpoint-levels~tape|--storage pi: --checkpoint-levels",
            "--storage pi=--checkpoint-full-every~0|--storage pi: --checkpoint-full-every must be an integer >= 1, got 0",
            "--storage zs=--checkpoint-compression~lz4|--storage zs: --checkpoint-compression",
            "--storage pi=--checkpoint-full-every|--storage pi: --checkpoint-full-every needs a value",
            "--storage pi=--checkpoint-full-every~2~--checkpoint-full-every~4|--storage pi: --checkpoint-full-every given twice",
            "--storage partner-incremental=|--storage label must be 1-12 lower-case letters",
            "--storage nolabel|--storage must be LABEL=OPTIONS",
            "--nodes 1 --fail-rank 0 --variants baseline,daly|the daly variant needs --nodes 2 or more, got 1",
            "--variants periodic,daly|the daly variant's efficiency needs the baseline variant too",
            "--storage full= --checkpoint-compression zstd|give --storage, or --checkpoint-levels",
            "--classes B --stand-in C|--stand-in C must be a smaller class than one of --classes [B]",
            "--stand-in Z|--stand-in: class must be one of S, W, A, B, C, got 'Z'"})
    void badInputIsOneLineNamingItAndExitStatus2(String args, String message) {
        // '~' is a space inside one argument (a --storage value).
        String[] argv = java.util.Arrays.stream((args + " --out " + dir.resolve("out") + " --no-readme").split(" "))
                .map(a -> a.replace('~', ' ')).toArray(String[]::new);
        String error = usageError(argv);
        assertTrue(error.startsWith("npb-bench: ") && error.contains(message), error);
        assertEquals(1, error.strip().lines().count(), "one line, no stack trace: " + error);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "--kernel xx|kernel must be one of ep, cg, is, mg, ft, bt, lu, sp, got 'xx'",
            "--class Q|class must be one of S, W, A, B, C, got 'Q'",
            "--repeats 0|--repeats must be >= 1, got 0",
            "--target 1.5|--target must be a fraction in (0, 1], got 1.5"})
    void throughputsBadInputIsAUsageErrorBeforeAnythingRuns(String args, String message) {
        String error = usageError(("throughput " + args + " --out " + dir.resolve("out")).split(" "));
        assertTrue(error.contains(message), error);
    }

    /** Runs npb-bench on {@code argv}, asserts that it exits with the usage status before anything ran; returns its error output. */
    private String usageError(String[] argv) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = NpbBench.execute(argv, Clock.systemUTC(), new PrintStream(new ByteArrayOutputStream(), true),
                new PrintStream(err, true));
        String error = err.toString(StandardCharsets.UTF_8);
        assertEquals(NpbBench.USAGE, status, error);
        assertFalse(Files.exists(dir.resolve("out")), "nothing ran");
        return error;
    }

    @Test
    void throughputIsASubcommand() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = NpbBench.execute(new String[] {"throughput", "--help"}, Clock.systemUTC(), new PrintStream(out, true),
                new PrintStream(new ByteArrayOutputStream(), true));
        assertEquals(NpbBench.OK, status);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("--target"), out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void durationsTakeShortFormsAndIso() {
        assertEquals(Duration.ofHours(24), NpbBench.duration("--mtbf", "24h"));
        assertEquals(Duration.ofSeconds(90), NpbBench.duration("--mtbf", "90s"));
        assertEquals(Duration.ofMinutes(1), NpbBench.duration("--mtbf", "PT1M"));
        assertEquals(Duration.ofDays(2), NpbBench.duration("--mtbf", "2d"));
        assertThrows(BenchException.Usage.class, () -> NpbBench.duration("--mtbf", "1 hour"));
    }

    @Test
    void rankHeapsTakeMegabytesOrGigabytesAndShareThreeQuartersOfTheMachineByDefault() {
        assertEquals(4096, NpbBench.megabytes("--rank-heap", "4g"));
        assertEquals(3500, NpbBench.megabytes("--rank-heap", "3500M"));
        assertThrows(BenchException.Usage.class, () -> NpbBench.megabytes("--rank-heap", "4.5g"));
        long gib = 1L << 30;
        assertEquals(3 * 1024, BenchSettings.defaultRankHeapMb(20 * gib, 4, 1), "3/4 of 20 GiB over 5 JVMs");
        assertEquals(BenchSettings.MIN_RANK_HEAP_MB, BenchSettings.defaultRankHeapMb(gib, 64, 8));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"baseline,pause", "one-checkpoint,pause", "periodic,pause", "pause,pause", "restart,restart",
            "full-restart,full-restart"})
    void everyVariantRunsWithARecoveryModeMpirunFtAccepts(String variant, String recovery) {
        assertEquals(recovery, Variant.parse(variant).recoveryMode());
    }

    /** NPB starts through bin/npb, a script: mpirun-ft cannot see that it uses the rank library unless told. */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"baseline,on", "periodic,on", "pause,on", "daly,on", "migration,on", "pause-cold,off", "restart,", "full-restart,",
            "transparent,"})
    void everyVariantThatRecoversInPlaceHasWarmSparesButPauseCold(String variant, String warmSpares) {
        assertEquals(warmSpares == null ? List.of() : List.of("--warm-spares", warmSpares), Variant.parse(variant).launcherOptions());
    }

    @Test
    void theRecordedCommandCanBePastedBackIntoAShell() {
        assertEquals("npb-harness/bin/npb-bench --kernels ep,cg --readme '/tmp/a b/README.md'",
                NpbBench.commandLine(new String[] {"--kernels", "ep,cg", "--readme", "/tmp/a b/README.md"}));
    }

    @Test
    void storageConfigurationsAreValidatedAndRenderedByTheRankLibrarysParsers() {
        BenchSettings settings = settings("--storage", "full=", "--storage",
                "pi=--checkpoint-levels partner,shared:8 --checkpoint-full-every=8", "--storage", "zstd=--checkpoint-compression ZSTD");
        assertEquals(List.of("full", "pi", "zstd"), settings.storage().stream().map(StorageConfig::label).toList());
        assertEquals(List.of(), settings.storage().get(0).options(), "empty: mpirun-ft's defaults");
        assertEquals(List.of("--checkpoint-levels", "partner,shared:8", "--checkpoint-full-every", "8"), settings.storage().get(1).options());
        assertEquals(List.of("--checkpoint-compression", "zstd"), settings.storage().get(2).options());
        assertEquals(List.of(StorageConfig.DEFAULT), settings().storage(), "no storage option: one unnamed configuration");
        assertEquals(42, settings("--seed", "42").seed());
    }

    /** The settings of {@code args}, parsed and validated as the command does, without running anything. */
    static BenchSettings settings(String... args) {
        NpbBench bench = new NpbBench();
        new picocli.CommandLine(bench).parseArgs(args);
        return bench.settings();
    }
}
