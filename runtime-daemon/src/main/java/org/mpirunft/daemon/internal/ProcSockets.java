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
        Set<Long> inodes = socketInodes(pids);
        Set<Integer> ports = new TreeSet<>();
        if (!inodes.isEmpty()) {
            tableLines(pids.getFirst(), line -> parse(line, inodes, ports));
        }
        return ports;
    }

    /** Each socket line of the TCP tables (IPv4, IPv6) of {@code pid}'s network namespace. */
    private static void tableLines(long pid, java.util.function.Consumer<String> each) {
        for (String table : List.of("tcp", "tcp6")) {
            try (Stream<String> lines = Files.lines(Path.of("/proc", Long.toString(pid), "net", table))) {
                lines.skip(1).forEach(each);
            } catch (IOException | java.io.UncheckedIOException ignored) {
                // No such table (no IPv6), or the process exited.
            }
        }
    }

    /**
     * The local endpoints ({@code 127.0.0.1:42665}, {@code [::1]:9000}) of the processes' TCP
     * sockets, in every state: what a restore of them binds again.
     */
    static Set<String> localEndpoints(List<Long> pids) {
        Set<Long> inodes = socketInodes(pids);
        Set<String> endpoints = new TreeSet<>();
        if (!inodes.isEmpty()) {
            tableLines(pids.getFirst(), line -> endpoint(line, inodes).ifPresent(endpoints::add));
        }
        return endpoints;
    }

    /** The local endpoint of one /proc/net/tcp{,6} line if its inode is one of {@code inodes}; the any address is left out. */
    static java.util.Optional<String> endpoint(String line, Set<Long> inodes) {
        String[] fields = line.strip().split("\\s+");
        try {
            if (fields.length < 10 || !inodes.contains(Long.parseLong(fields[9]))) {
                return java.util.Optional.empty();
            }
            String[] local = fields[1].split(":");
            int port = Integer.parseInt(local[1], 16);
            byte[] raw = java.util.HexFormat.of().parseHex(local[0]);
            // /proc prints each 32-bit word in host (little-endian) order.
            for (int word = 0; word < raw.length; word += 4) {
                for (int i = 0; i < 2; i++) {
                    byte b = raw[word + i];
                    raw[word + i] = raw[word + 3 - i];
                    raw[word + 3 - i] = b;
                }
            }
            java.net.InetAddress address = java.net.InetAddress.getByAddress(raw);
            if (address.isAnyLocalAddress()) {
                return java.util.Optional.empty();
            }
            String host = address.getHostAddress();
            return java.util.Optional.of((address instanceof java.net.Inet6Address ? "[" + host + "]" : host) + ":" + port);
        } catch (RuntimeException | java.net.UnknownHostException e) {
            return java.util.Optional.empty();
        }
    }

    private static Set<Long> socketInodes(List<Long> pids) {
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
        return inodes;
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
