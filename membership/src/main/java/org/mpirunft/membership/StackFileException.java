package org.mpirunft.membership;

/**
 * A JGroups stack file (the shipped one or an operator's override, {@link MembershipConfig#stackFile()})
 * that cannot be used. The message is one line, {@code source: problem}, naming the file and, where
 * there is one, the protocol, the attribute or the variable at fault.
 */
public class StackFileException extends MembershipException {
    private final String source;
    private final String problem;

    public StackFileException(String source, String problem, Throwable cause) {
        super(source + ": " + problem, cause);
        this.source = source;
        this.problem = problem;
    }

    /** The file (or the shipped resource) the problem is in. */
    public String source() {
        return source;
    }

    /** The problem, without the source. */
    public String problem() {
        return problem;
    }
}
