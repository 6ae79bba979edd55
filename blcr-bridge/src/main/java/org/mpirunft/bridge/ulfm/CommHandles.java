package org.mpirunft.bridge.ulfm;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import mpi.Comm;
import mpi.Group;
import mpi.Intracomm;

/**
 * Crosses between {@code mpi.Comm} objects and raw {@code MPI_Comm} handles. The bindings keep
 * both the handle field and the handle constructor protected; mpi.jar sits on the class path
 * (the unnamed module), so private lookups into it are allowed.
 */
final class CommHandles {
    private static final MethodHandle HANDLE_GETTER;
    private static final MethodHandle INTRACOMM_FROM_HANDLE;
    private static final MethodHandle GROUP_FROM_HANDLE;

    static {
        try {
            MethodHandles.Lookup commLookup = MethodHandles.privateLookupIn(Comm.class, MethodHandles.lookup());
            HANDLE_GETTER = commLookup.findGetter(Comm.class, "handle", long.class);
            MethodHandles.Lookup intraLookup = MethodHandles.privateLookupIn(Intracomm.class, MethodHandles.lookup());
            INTRACOMM_FROM_HANDLE = intraLookup.findConstructor(Intracomm.class, MethodType.methodType(void.class, long.class));
            MethodHandles.Lookup groupLookup = MethodHandles.privateLookupIn(Group.class, MethodHandles.lookup());
            GROUP_FROM_HANDLE = groupLookup.findConstructor(Group.class, MethodType.methodType(void.class, long.class));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(
                    "mpi.jar does not look like Open MPI 5.0's Java bindings (no Comm.handle, Intracomm(long) or Group(long)): " + e);
        }
    }

    private CommHandles() {
    }

    static long handleOf(Comm comm) {
        try {
            return (long) HANDLE_GETTER.invoke(comm);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot read the MPI_Comm handle of " + comm, e);
        }
    }

    static Group groupOf(long handle) {
        try {
            return (Group) GROUP_FROM_HANDLE.invoke(handle);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot wrap MPI_Group handle 0x" + Long.toHexString(handle), e);
        }
    }

    static Intracomm intracommOf(long handle) {
        try {
            return (Intracomm) INTRACOMM_FROM_HANDLE.invoke(handle);
        } catch (Throwable e) {
            throw new IllegalStateException("cannot wrap MPI_Comm handle 0x" + Long.toHexString(handle), e);
        }
    }
}
