package org.mpirunft.bridge.ulfm;

/** A ULFM call returned an error code instead of {@code MPI_SUCCESS}. */
public final class UlfmException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errorCode;

    public UlfmException(String call, int errorCode) {
        super(call + " failed with MPI error " + errorCode + describe(errorCode));
        this.call = call;
        this.errorCode = errorCode;
    }

    public String call() {
        return call;
    }

    /** Open MPI's predefined error codes are their own error classes. */
    public int errorCode() {
        return errorCode;
    }

    public boolean isProcessFailure() {
        return errorCode == Ulfm.ERR_PROC_FAILED || errorCode == Ulfm.ERR_PROC_FAILED_PENDING;
    }

    private static String describe(int code) {
        return switch (code) {
            case Ulfm.ERR_PROC_FAILED -> " (MPI_ERR_PROC_FAILED)";
            case Ulfm.ERR_PROC_FAILED_PENDING -> " (MPI_ERR_PROC_FAILED_PENDING)";
            case Ulfm.ERR_REVOKED -> " (MPI_ERR_REVOKED)";
            default -> "";
        };
    }
}
