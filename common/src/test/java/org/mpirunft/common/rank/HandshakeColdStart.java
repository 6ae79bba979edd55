package org.mpirunft.common.rank;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import org.mpirunft.common.JsonLines;

/**
 * One cold JVM's handshake, as a starting rank does it: {@code scripts/bench-handshake} runs it in
 * fresh JVMs, alternating the two codecs, and prints the process CPU each spent on the handshake.
 * Before the handshake it decodes one plain record through {@link JsonLines}, as a relaunched rank
 * reads its epoch's manifest anyway, so what is left is the handshake's own cost.
 *
 * <p>Usage: {@code HandshakeColdStart databind|streaming}; prints {@code CODEC cpu_ms=N wall_ms=N}.
 */
public final class HandshakeColdStart {
    /** Stands in for the manifest: a plain record, no polymorphism. */
    public record Manifest(int version, String job, long epoch, long iteration, int worldSize) {
    }

    private HandshakeColdStart() {
    }

    public static void main(String[] args) {
        if (args.length != 1 || !(args[0].equals("databind") || args[0].equals("streaming"))) {
            System.err.println("usage: HandshakeColdStart databind|streaming");
            System.exit(2);
        }
        JsonLines.decode("{\"version\":1,\"job\":\"j1\",\"epoch\":3,\"iteration\":40,\"worldSize\":4}", Manifest.class);
        RankMessage.Hello hello = new RankMessage.Hello(RankMessage.VERSION, "j1", 1, ProcessHandle.current().pid(), false);
        String welcome = "{\"type\":\"welcome\",\"version\":" + RankMessage.VERSION
                + ",\"job\":\"j1\",\"node\":\"n1\",\"scheduled\":true,\"orderedEpoch\":0,\"servedOrder\":0,\"everyIterations\":0}";
        long cpu0 = cpu();
        long wall0 = System.nanoTime();
        String line;
        RankMessage answer;
        if (args[0].equals("databind")) {
            line = JsonLines.encode(hello);
            answer = JsonLines.decode(welcome, RankMessage.class);
        } else {
            line = Handshake.encode(hello);
            answer = Handshake.decodeAnswer(welcome);
        }
        long cpu = cpu() - cpu0;
        long wall = System.nanoTime() - wall0;
        if (line.isEmpty() || !(answer instanceof RankMessage.Welcome)) {
            throw new IllegalStateException("the handshake did not round-trip");
        }
        System.out.println(args[0] + " cpu_ms=" + cpu / 1_000_000 + " wall_ms=" + wall / 1_000_000);
    }

    private static long cpu() {
        return ((OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }
}
