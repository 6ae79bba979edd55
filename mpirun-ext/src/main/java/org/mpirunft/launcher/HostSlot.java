package org.mpirunft.launcher;

/**
 * A host and the number of ranks it may run, as Open MPI's {@code --host name:slots} says it.
 *
 * @param name  the node's host name
 * @param slots at least 1
 */
public record HostSlot(String name, int slots) {
    public HostSlot {
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,253}")) {
            throw new BadSettingException("--host", "'" + name + "' is not a host name");
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
