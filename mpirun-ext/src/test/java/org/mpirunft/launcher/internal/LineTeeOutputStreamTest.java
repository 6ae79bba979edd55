package org.mpirunft.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineTeeOutputStreamTest {
    private final ByteArrayOutputStream target = new ByteArrayOutputStream();
    private final List<String> lines = new ArrayList<>();

    @Test
    void passesBytesThroughAndSplitsLinesAcrossWrites() throws Exception {
        try (LineTeeOutputStream tee = new LineTeeOutputStream(target, lines::add)) {
            tee.write("héllo wo".getBytes(StandardCharsets.UTF_8));
            tee.write("rld\r\nsecond\n\nthi".getBytes(StandardCharsets.UTF_8));
            tee.write('r');
            tee.write('d');
        }
        assertEquals("héllo world\r\nsecond\n\nthird", target.toString(StandardCharsets.UTF_8));
        assertEquals(List.of("héllo world", "second", "", "third"), lines);
    }

    @Test
    void handsOnAnOverlongLineInPieces() throws Exception {
        try (LineTeeOutputStream tee = new LineTeeOutputStream(target, lines::add)) {
            tee.write(("x".repeat(LineTeeOutputStream.MAX_LINE + 10) + "\n").getBytes(StandardCharsets.UTF_8));
        }
        assertEquals(List.of(LineTeeOutputStream.MAX_LINE, 10), lines.stream().map(String::length).toList());
    }

    @Test
    void aFailingListenerNeverStopsTheStream() throws Exception {
        try (LineTeeOutputStream tee = new LineTeeOutputStream(target, line -> {
            throw new IllegalStateException("boom");
        })) {
            tee.write("a\nb\n".getBytes(StandardCharsets.UTF_8));
        }
        assertEquals("a\nb\n", target.toString(StandardCharsets.UTF_8));
    }
}
