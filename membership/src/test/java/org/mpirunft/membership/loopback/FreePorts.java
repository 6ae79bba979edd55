package org.mpirunft.membership.loopback;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks loopback ports for member processes: for each member a port {@code p} such that both
 * {@code p} (the group transport) and {@code p + offset} (FD_SOCK2) are free right now. Ports
 * come from below the kernel's ephemeral range, so an outgoing connection cannot take one
 * between the check and the member's bind. The search starts at a random place, so concurrent
 * test runs rarely pick the same ports; a run that does anyway is kept apart by its cluster name.
 */
public final class FreePorts {
    private static final int LOW = 10_000;
    private static final int HIGH = ephemeralLow() - 1_000;

    private FreePorts() {
    }

    public static List<Integer> allocate(int count, int offset) {
        List<Integer> ports = new ArrayList<>(count);
        int candidate = LOW + ThreadLocalRandom.current().nextInt(HIGH - LOW);
        int tried = 0;
        while (ports.size() < count) {
            if (++tried > 20_000) {
                throw new IllegalStateException("no " + count + " free loopback port pairs (offset " + offset + ") found");
            }
            candidate = candidate + 1 >= HIGH ? LOW : candidate + 1;
            if (candidate + offset >= HIGH || ports.contains(candidate) || ports.contains(candidate + offset)
                    || ports.contains(candidate - offset)) {
                continue;
            }
            if (isFree(candidate) && isFree(candidate + offset)) {
                ports.add(candidate);
            }
        }
        return ports;
    }

    /** The first port of Linux's ephemeral range (32768 if it cannot be read). */
    private static int ephemeralLow() {
        try {
            String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).strip();
            int low = Integer.parseInt(range.split("\\s+")[0]);
            return Math.max(LOW + 5_000, low);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }

    static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
