package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/** The TCP sockets of a set of processes, read from /proc as {@code ss} reads them. */
final class ProcSockets {
    private ProcSockets() {
    }

    /** The local ports of the processes' TCP sockets bound to a loopback address (127.0.0.0/8, ::1). */
    static Set<Integer> loopbackPorts(List<Long> pids) {
        Set<Long> inodes = new HashSet<>();
        for (long pid : pids) {
            try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
                fds.forEach(fd -> {
                    try {
                        String target = Files.readSymbolicLink(fd).toString();
                        if (target.startsWith("socket:[")) {
                            inodes.add(Long.parseLong(target.substring(8, target.length() - 1)));
                        }
                    } catch (IOException | NumberFormatException ignored) {
                        // Closed meanwhile.
                    }
                });
            } catch (IOException ignored) {
                // The process exited.
            }
        }
        Set<Integer> ports = new TreeSet<>();
        if (inodes.isEmpty()) {
            return ports;
        }
        // The tables of the processes' network namespace.
        for (String table : List.of("tcp", "tcp6")) {
            try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pids.getFirst()), "net", table))) {
                lines.skip(1).forEach(line -> parse(line, inodes, ports));
            } catch (IOException | java.io.UncheckedIOException ignored) {
                // No such table (no IPv6), or the process exited.
            }
        }
        return ports;
    }

    /** One line of /proc/net/tcp{,6}: {@code sl local rem st queues tr retrnsmt uid timeout inode ...}. */
    static void parse(String line, Set<Long> inodes, Set<Integer> ports) {
        String[] fields = line.strip().split("\\s+");
        if (fields.length < 10) {
            return;
        }
        try {
            if (!inodes.contains(Long.parseLong(fields[9]))) {
                return;
            }
            String[] local = fields[1].split(":");
            if (isLoopback(local[0])) {
                ports.add(Integer.parseInt(local[1], 16));
            }
        } catch (NumberFormatException | ArrayIndexOutOfBoundsException ignored) {
            // Not a socket line.
        }
    }

    /** /proc's hex address: IPv4 in host (little-endian) order, IPv6 as four such words. */
    static boolean isLoopback(String hex) {
        if (hex.length() == 8) {
            return hex.endsWith("7F");
        }
        return hex.equals("00000000000000000000000001000000")
                || (hex.startsWith("0000000000000000FFFF0000") && hex.endsWith("7F"));
    }
}
