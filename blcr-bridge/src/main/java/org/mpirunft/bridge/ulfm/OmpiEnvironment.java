package org.mpirunft.bridge.ulfm;

import com.sun.jna.Library;
import com.sun.jna.Native;
import java.time.Duration;

/**
 * Open MPI settings the rank library needs whatever the launch command said, set in this
 * process's C environment before {@code MPI_Init} reads its MCA variables. A value the user set
 * (an {@code OMPI_MCA_*} variable, or mpirun's {@code --mca}, which arrives as one) wins.
 */
public final class OmpiEnvironment {
    /**
     * Bound on each {@code PMIx_Connect}. Open MPI's default is none, and the connect of a
     * repair has been seen to hang for good (a replacement's {@code MPI_Init} stuck in
     * {@code ompi_dpm_connect_accept}) after a single rank was killed, and to wait for a
     * survivor lost during it. Bounded, the repair attempt fails with an error and is tried
     * again. Every side enters the connect right after the rendezvous, so a few seconds are
     * plenty; each second here is a second more for a repair that lost a rank mid-way.
     */
    public static final Duration CONNECT_BOUND = Duration.ofSeconds(10);

    static final String CONNECT_TIMEOUT = "OMPI_MCA_mpi_pmix_connect_timeout";

    interface LibC extends Library {
        int setenv(String name, String value, int overwrite);

        String getenv(String name);
    }

    private OmpiEnvironment() {
    }

    /** Sets the rank library's Open MPI defaults; call before {@code MPI_Init}. */
    public static void applyDefaults() {
        setDefault(CONNECT_TIMEOUT, Long.toString(CONNECT_BOUND.toSeconds()));
    }

    /**
     * Whether Open MPI runs this process with ULFM on: {@code mpirun --with-ft ulfm} (or the
     * user's {@code --mca mpi_ft_enable 1}) hands the ranks the MCA variable in their
     * environment. Without it a lost rank ends the job, so nothing recovers in place. A setting
     * made only in an MCA parameter file is not seen here.
     */
    public static boolean ulfmEnabled() {
        return ulfmEnabled(System.getenv(FT_ENABLE));
    }

    /** {@link #ulfmEnabled()} for a given value of {@code OMPI_MCA_mpi_ft_enable} (null if unset). */
    public static boolean ulfmEnabled(String mpiFtEnable) {
        return isTrue(mpiFtEnable);
    }

    static final String FT_ENABLE = "OMPI_MCA_mpi_ft_enable";

    /** An MCA boolean as Open MPI reads it; unset is false. */
    static boolean isTrue(String mcaValue) {
        if (mcaValue == null) {
            return false;
        }
        return switch (mcaValue.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "", "0", "false", "no", "disabled" -> false;
            default -> true;
        };
    }

    /** Sets {@code name} in the C environment unless it is set already. */
    static void setDefault(String name, String value) {
        if (Holder.LIBC.setenv(name, value, 0) != 0) {
            throw new IllegalStateException("setenv(" + name + ") failed: errno " + Native.getLastError());
        }
    }

    /** The C environment's value of {@code name} (Java's {@code System.getenv} is a copy from start-up). */
    static String get(String name) {
        return Holder.LIBC.getenv(name);
    }

    private static final class Holder {
        static final LibC LIBC = Native.load("c", LibC.class);
    }
}
