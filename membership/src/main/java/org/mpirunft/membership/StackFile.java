package org.mpirunft.membership;

import org.mpirunft.membership.internal.GroupStack;

/**
 * The group's JGroups stack as a file in JGroups' XML form. The one shipped in this module's jar
 * ({@link #SHIPPED_RESOURCE}) is the default; an operator's copy ({@link MembershipConfig#stackFile()})
 * replaces it. Its {@code ${mpirunft.*}} variables are each member's values from its
 * {@link MembershipConfig} (README.md, "The stack", lists them).
 */
public final class StackFile {
    /** The shipped stack, a classpath resource. */
    public static final String SHIPPED_RESOURCE = "org/mpirunft/membership/ftd-stack.xml";

    private StackFile() {
    }

    /** The shipped stack's text, comments included: what an operator copies to tune. */
    public static String shippedXml() {
        return GroupStack.shippedXml();
    }

    /**
     * Builds the stack {@code config} would join with, its stack file and its values, without
     * opening a socket, and fails if that cannot be done.
     *
     * @throws StackFileException naming the file and the problem (no such file, not a JGroups
     *                            stack, an unknown variable, protocol or attribute, a protocol
     *                            the service needs missing)
     */
    public static void check(MembershipConfig config) {
        GroupStack.check(config);
    }
}
