package org.mpirunft.launcher.internal;

import java.util.ArrayList;
import java.util.List;

/**
 * Mirrors how the rank library picks hosts for replacements, so mpirun-ft knows where a
 * replaced rank now runs: blcr-bridge's {@code WorldRepair} places the n-th replacement of a
 * run on the n-th entry of {@code MPIRUN_FT_SPARES}, one entry per spare slot, lost ranks in
 * ascending order. Not thread-safe.
 */
public final class SpareLedger {
    private final List<String> slots;
    private int used;

    public SpareLedger(List<String> spareSlots) {
        this.slots = List.copyOf(spareSlots);
    }

    /** The hosts the next {@code count} replacements go to; fewer if the list runs out. */
    public List<String> take(int count) {
        List<String> hosts = new ArrayList<>();
        for (int i = 0; i < count && used < slots.size(); i++) {
            hosts.add(slots.get(used++));
        }
        return hosts;
    }

    public int remaining() {
        return slots.size() - used;
    }

    /** The entries not yet used, in order. */
    public List<String> unused() {
        return slots.subList(used, slots.size());
    }
}
