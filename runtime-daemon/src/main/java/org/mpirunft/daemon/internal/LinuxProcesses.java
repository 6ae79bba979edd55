package org.mpirunft.daemon.internal;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.ptr.IntByReference;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The few Linux process calls the JDK lacks: becoming a child subreaper, so that Open MPI's
 * daemonizing node daemon stays this daemon's descendant, and reaping such adopted children.
 */
final class LinuxProcesses {
    private static final int PR_SET_CHILD_SUBREAPER = 36;
    private static final int WNOHANG = 1;

    private interface LibC extends Library {
        LibC INSTANCE = Native.load("c", LibC.class);

        int prctl(int option, long arg2, long arg3, long arg4, long arg5);

        int waitpid(int pid, IntByReference status, int options);
    }

    private LinuxProcesses() {
    }

    static boolean becomeSubreaper() {
        return LibC.INSTANCE.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
    }

    /** Reaps {@code pid} if it is an exited child; never blocks. */
    static boolean reap(long pid) {
        return LibC.INSTANCE.waitpid((int) pid, new IntByReference(), WNOHANG) == pid;
    }

    /**
     * Reaps {@code pid} if it is an exited child and returns how it ended: its exit status, or
     * 128 + the signal that killed it, as a shell reports it. Never blocks.
     */
    static java.util.OptionalInt reapStatus(long pid) {
        IntByReference status = new IntByReference();
        if (LibC.INSTANCE.waitpid((int) pid, status, WNOHANG) != pid) {
            return java.util.OptionalInt.empty();
        }
        int raw = status.getValue();
        int signal = raw & 0x7f;
        return java.util.OptionalInt.of(signal == 0 ? (raw >> 8) & 0xff : 128 + signal);
    }

    /** The process's state letter and parent from /proc/PID/stat, if it still exists. */
    static Optional<Stat> stat(long pid) {
        try {
            String text = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            // The command name is in parentheses and may hold spaces: parse after the last ')'.
            String[] fields = text.substring(text.lastIndexOf(')') + 2).split(" ");
            return Optional.of(new Stat(fields[0].charAt(0), Long.parseLong(fields[1])));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    static String commandName(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
        } catch (IOException e) {
            return "?";
        }
    }

    /** A variable of the process's initial environment, which its children inherit. */
    static Optional<String> environment(long pid, String name) {
        try {
            byte[] bytes = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
            String prefix = name + "=";
            for (String entry : new String(bytes, StandardCharsets.UTF_8).split("\0")) {
                if (entry.startsWith(prefix)) {
                    return Optional.of(entry.substring(prefix.length()));
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    record Stat(char state, long parent) {
    }
}
