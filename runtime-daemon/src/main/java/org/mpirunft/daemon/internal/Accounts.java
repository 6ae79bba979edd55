package org.mpirunft.daemon.internal;

import com.sun.jna.Library;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The node's user database, as the C library sees it (files, LDAP, SSSD: whatever NSS has), for
 * the daemon that must know a local client's uid and groups and start a job's processes as its
 * owner. The JDK tells a Unix socket peer's user by name only, and knows nothing of groups.
 * Uses the reentrant calls, so lookups from several connections do not share libc's buffers.
 */
final class Accounts {
    private static final int BUFFER_BYTES = 16 * 1024;
    /** struct passwd on LP64 Linux: pw_name, pw_passwd (pointers), pw_uid, pw_gid (4 bytes each), pw_gecos, pw_dir, pw_shell. */
    private static final int PASSWD_BYTES = 48;
    private static final int PW_UID = 16;
    private static final int PW_GID = 20;
    private static final int PW_DIR = 32;
    /** struct group on LP64 Linux: gr_name, gr_passwd (pointers), gr_gid (4 bytes), gr_mem. */
    private static final int GROUP_BYTES = 32;
    private static final int GR_GID = 16;
    /** NGROUPS_MAX on Linux. */
    private static final int MAX_GROUPS = 65536;

    private interface LibC extends Library {
        LibC INSTANCE = Native.load("c", LibC.class);

        int getpwnam_r(String name, Pointer passwd, Pointer buffer, long size, PointerByReference result);

        int getpwuid_r(int uid, Pointer passwd, Pointer buffer, long size, PointerByReference result);

        int getgrnam_r(String name, Pointer group, Pointer buffer, long size, PointerByReference result);

        int getgrouplist(String user, int group, int[] groups, IntByReference ngroups);
    }

    /**
     * A user as the node knows them.
     *
     * @param groups every group the user is in, the primary one included
     */
    record Account(long uid, long gid, String name, String home, List<Long> groups) {
        Account {
            groups = List.copyOf(groups);
        }
    }

    private Accounts() {
    }

    /** The user called {@code name}; a numeric name (a uid without a passwd entry, as the JDK reports one) has no groups but its own. */
    static Optional<Account> byName(String name) {
        Memory passwd = new Memory(PASSWD_BYTES);
        Memory buffer = new Memory(BUFFER_BYTES);
        PointerByReference result = new PointerByReference();
        if (LibC.INSTANCE.getpwnam_r(name, passwd, buffer, BUFFER_BYTES, result) == 0 && result.getValue() != null) {
            return Optional.of(account(passwd));
        }
        if (name.chars().allMatch(Character::isDigit) && !name.isEmpty() && name.length() < 10) {
            long uid = Long.parseLong(name);
            return Optional.of(new Account(uid, uid, name, "/", List.of(uid)));
        }
        return Optional.empty();
    }

    static Optional<Account> byUid(long uid) {
        Memory passwd = new Memory(PASSWD_BYTES);
        Memory buffer = new Memory(BUFFER_BYTES);
        PointerByReference result = new PointerByReference();
        if (LibC.INSTANCE.getpwuid_r((int) uid, passwd, buffer, BUFFER_BYTES, result) == 0 && result.getValue() != null) {
            return Optional.of(account(passwd));
        }
        return Optional.empty();
    }

    /** The id of group {@code name}, if the node has such a group. */
    static Optional<Long> groupId(String name) {
        Memory group = new Memory(GROUP_BYTES);
        Memory buffer = new Memory(BUFFER_BYTES);
        PointerByReference result = new PointerByReference();
        if (LibC.INSTANCE.getgrnam_r(name, group, buffer, BUFFER_BYTES, result) == 0 && result.getValue() != null) {
            return Optional.of(Integer.toUnsignedLong(group.getInt(GR_GID)));
        }
        return Optional.empty();
    }

    private static Account account(Pointer passwd) {
        String name = passwd.getPointer(0).getString(0);
        long uid = Integer.toUnsignedLong(passwd.getInt(PW_UID));
        long gid = Integer.toUnsignedLong(passwd.getInt(PW_GID));
        Pointer dir = passwd.getPointer(PW_DIR);
        return new Account(uid, gid, name, dir == null ? "/" : dir.getString(0), groups(name, gid));
    }

    /** The user's groups; a user in more groups than first room for gets a second, larger call. */
    private static List<Long> groups(String name, long gid) {
        int[] groups = new int[64];
        IntByReference count = new IntByReference(groups.length);
        if (LibC.INSTANCE.getgrouplist(name, (int) gid, groups, count) < 0) {
            groups = new int[Math.min(Math.max(count.getValue(), 64), MAX_GROUPS)];
            count = new IntByReference(groups.length);
            if (LibC.INSTANCE.getgrouplist(name, (int) gid, groups, count) < 0) {
                return List.of(gid);
            }
        }
        List<Long> all = new ArrayList<>(count.getValue());
        for (int i = 0; i < count.getValue(); i++) {
            all.add(Integer.toUnsignedLong(groups[i]));
        }
        return all;
    }
}
