package org.mpirunft.npb.bench;

/** The harness's root exception; its message is the one line the user sees. */
public class BenchException extends RuntimeException {
    public BenchException(String message) {
        super(message);
    }

    public BenchException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Bad input: an unknown kernel, class or variant, a bad count. Exit status 2. */
    public static final class Usage extends BenchException {
        public Usage(String message) {
            super(message);
        }
    }
}
