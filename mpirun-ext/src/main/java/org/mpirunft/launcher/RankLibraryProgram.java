package org.mpirunft.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Logger;
import org.mpirunft.bridge.FtConfig;

/**
 * Whether the job's program is known to use the rank library, which decides its warm spares
 * under {@code --warm-spares auto}. Warm spares are ranks of the job's {@code MPI_COMM_WORLD}:
 * the rank library gives the program a world without them, but a program that does not use it
 * (a C program, a Java one on Open MPI's bindings alone) would see {@code -np} plus the spares,
 * as it never would under mpirun.
 *
 * <p>Known means either
 * <ul>
 *   <li>the program is a {@code java} command whose class path holds the library
 *       ({@link JavaCommand#holdsRankLibrary}): a user's {@code java -cp app.jar:mpirun-ft-rank.jar Main}
 *       gets warm spares from its first run; or</li>
 *   <li>an earlier run of the same program (its command line and the files it names, as
 *       {@link RankAotCache#key} tells programs apart) left a note that its rank library
 *       started: a program started through a script gets them from its second run.</li>
 * </ul>
 * For a program not known, mpirun-ft asks its rank 0 to leave that note
 * ({@code internal.RankLibraryNote} in the rank library), in the user's
 * {@code CHECKPOINT_DIR/USER/.rank-library/}, which every node sees.
 */
public final class RankLibraryProgram {
    /** Set for the ranks of a program not known yet: where rank 0 notes that it uses the rank library. */
    public static final String NOTE_VARIABLE = FtConfig.environmentName(FtConfig.RANK_LIBRARY_NOTE);
    /** Under the user's shared checkpoint directory: a job id starts with a letter or digit, so no job has this name. */
    static final String DIRECTORY = ".rank-library";
    private static final Logger LOG = Logger.getLogger(RankLibraryProgram.class.getName());

    private final String name;
    private final boolean onClassPath;
    private final Path note;

    /**
     * What a launch knows of its program: whether it uses the rank library (only asked under
     * {@code --warm-spares auto}, else false), and the ranks' variable that asks rank 0 for the note.
     */
    public record Verdict(boolean known, Map<String, String> noteEnvironment) {
        public Verdict {
            noteEnvironment = Map.copyOf(noteEnvironment);
        }
    }

    private RankLibraryProgram(String name, boolean onClassPath, Path note) {
        this.name = name;
        this.onClassPath = onClassPath;
        this.note = note;
    }

    /**
     * The job's {@code program} as mpirun-ft sees it from {@code workingDir}: {@code path} looks
     * up a bare program name, {@code classPathVariable} is the {@code CLASSPATH} its JVMs get.
     */
    public static RankLibraryProgram of(Path checkpointDir, List<String> program, Path workingDir, String path,
                                        Optional<String> classPathVariable) {
        Optional<JavaCommand> java = JavaCommand.of(program, classPathVariable);
        String name = java.map(j -> program.getFirst() + " " + j.main()).orElse(program.getFirst());
        return new RankLibraryProgram(name, java.map(j -> j.holdsRankLibrary(workingDir)).orElse(false),
                checkpointDir.resolve(DIRECTORY).resolve(RankAotCache.key(program, workingDir, path)));
    }

    /**
     * Whether the program of a launch of {@code settings} on {@code plan}, from {@code workingDir}
     * with mpirun-ft's {@code environment}, is known to use the rank library, when that decides
     * its warm spares ({@link LaunchSettings#warmSparesAskProgram}). For a program not known, it
     * says once why the job has no warm spare.
     */
    public static Verdict verdict(LaunchSettings settings, HostPlan plan, Path workingDir, Map<String, String> environment) {
        if (!settings.warmSparesAskProgram(plan)) {
            return new Verdict(false, Map.of());
        }
        RankLibraryProgram program = of(settings.checkpointDir(), settings.program(), workingDir, environment.get("PATH"),
                classPathVariable(settings.passThrough(), environment));
        if (program.known()) {
            return new Verdict(true, Map.of());
        }
        LOG.warning(() -> "mpirun-ft: no warm spares: " + program.name() + " is not known to use the rank library;"
                + " give --warm-spares on if it does");
        return new Verdict(false, program.noteEnvironment());
    }

    /**
     * The {@code CLASSPATH} the ranks' JVMs get: the value of the user's {@code -x CLASSPATH=...},
     * else mpirun-ft's own (which {@code -x CLASSPATH} exports, and which the ranks of mpirun's
     * own node inherit).
     */
    public static Optional<String> classPathVariable(List<String> passThrough, Map<String, String> environment) {
        String value = environment.get("CLASSPATH");
        for (int i = 0; i + 1 < passThrough.size(); i++) {
            if (passThrough.get(i).equals("-x") && passThrough.get(i + 1).startsWith("CLASSPATH=")) {
                value = passThrough.get(i + 1).substring("CLASSPATH=".length());
            }
        }
        return Optional.ofNullable(value);
    }

    /** Whether the program is known to use the rank library: on its class path, or noted by an earlier run. */
    public boolean known() {
        return onClassPath || Files.isRegularFile(note);
    }

    /** The program as a message names it: its first word, and for a {@code java} command what it runs. */
    public String name() {
        return name;
    }

    /**
     * The ranks' environment that has rank 0 note that the program uses the rank library, for a
     * program not known; empty if the note's directory cannot be made (the program then just
     * goes on without warm spares).
     */
    public Map<String, String> noteEnvironment() {
        try {
            Files.createDirectories(note.getParent());
            return Map.of(NOTE_VARIABLE, note.toString());
        } catch (IOException e) {
            LOG.fine(() -> "mpirun-ft: cannot create " + note.getParent() + ": " + e.getMessage());
            return Map.of();
        }
    }

    /** Where this program's note is. */
    Path note() {
        return note;
    }
}
