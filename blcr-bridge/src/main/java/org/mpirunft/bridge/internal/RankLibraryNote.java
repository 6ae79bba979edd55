package org.mpirunft.bridge.internal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.logging.Logger;

/**
 * Rank 0's note that this program uses the rank library. Warm spares are ranks of the job's
 * world, which only this library hides from the program, so mpirun-ft launches them only for a
 * program it knows uses it. It cannot see that in a program started through a script (the
 * script names the class path); this note, asked for on such a program's run, tells its later
 * runs. An empty file: its existence is the whole answer.
 */
public final class RankLibraryNote {
    private static final Logger LOG = Logger.getLogger(RankLibraryNote.class.getName());

    private RankLibraryNote() {
    }

    /** Creates {@code note}, whose directory mpirun-ft made; a note already there is as good. */
    static void write(Path note) {
        try {
            Files.createFile(note);
        } catch (FileAlreadyExistsException e) {
            // An earlier run's rank 0 noted it already.
        } catch (IOException e) {
            // The program still runs; its next runs go on without warm spares, as this one does.
            LOG.fine(() -> "cannot note in " + note + " that this program uses the rank library: " + e.getMessage());
        }
    }
}
