package org.mpirunft.launcher;

import java.util.List;

/** A job needs more spare nodes than there are, at launch or to replace a failed node. */
public final class NoSpareLeftException extends LauncherException {
    private static final long serialVersionUID = 1L;

    public NoSpareLeftException(String purpose, int needed, List<String> available) {
        super("no spare left " + purpose + ": " + needed + " needed, " + (available.isEmpty() ? "none" : available.size() + " " + available)
                + " available (add spare nodes, or lower --spares)");
    }
}
