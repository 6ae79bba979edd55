package org.mpirunft.launcher;

import org.mpirunft.common.Names;

/**
 * A host and the number of ranks it may run, as Open MPI's {@code --host name:slots} says it.
 *
 * @param name  the node's host name
 * @param slots at least 1
 */
public record HostSlot(String name, int slots) {
    public HostSlot {
        // A host is a node: the daemons know it by this name, so the same rule holds.
        if (!Names.isValid(name)) {
            throw new BadSettingException("--host", "'" + name + "' is not a node name (" + Names.RULE + ")");
        }
        if (slots < 1) {
            throw new BadSettingException("--host", name + " must have at least 1 slot, got " + slots);
        }
    }

    /** {@code node1:2}, the form of one entry of {@code --host}. */
    public String toHostArgument() {
        return name + ":" + slots;
    }
}
