package org.mpirunft.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineDropFilterTest {
    private static final String NOTE = "NOTE: Picked up JDK_JAVA_OPTIONS: -XX:AOTCache=/ck/a.aot";
    private final ByteArrayOutputStream target = new ByteArrayOutputStream();
    private final LineDropFilter filter = new LineDropFilter(target, List.of(NOTE, "Picked up JAVA_TOOL_OPTIONS: -XX:+Unlock"));

    private void write(String text) throws Exception {
        filter.write(text.getBytes(StandardCharsets.UTF_8));
    }

    private String out() {
        return target.toString(StandardCharsets.UTF_8);
    }

    @Test
    void dropsTheLinesThatStartWithAPrefixAndPassesTheRest() throws Exception {
        write("rank 0: héllo\n" + NOTE + "\nPicked up JAVA_TOOL_OPTIONS: -XX:+UnlockDiagnosticVMOptions -XX:AOTMode=create\n");
        write("NOTE: something else\nPicked up nothing\n");
        filter.finish();
        assertEquals("rank 0: héllo\nNOTE: something else\nPicked up nothing\n", out());
    }

    @Test
    void aLineSplitAcrossWritesIsJudgedWhole() throws Exception {
        write("NOTE: Picked up JDK_");
        assertEquals("", out(), "held while it could still be a notice");
        write("JAVA_OPTIONS: -XX:AOTCache=/ck/a.aot\nNOTE: Picked up JDK_JAVA_OPTIONS: -Xmx1g\n");
        assertEquals("NOTE: Picked up JDK_JAVA_OPTIONS: -Xmx1g\n", out(), "someone else's options are not ours to hide");
    }

    @Test
    void anOrdinaryLineStreamsOutBeforeItEnds() throws Exception {
        write("progress 10%");
        filter.flush();
        assertEquals("progress 10%", out(), "no waiting for the end of a line that cannot be a notice");
        write(" 20%\n");
        assertEquals("progress 10% 20%\n", out());
    }

    @Test
    void aHeldStartGoesOutWhenTheStreamIsOver() throws Exception {
        write("done\nNOTE: Pick");
        filter.flush();
        assertEquals("done\n", out());
        filter.finish();
        assertEquals("done\nNOTE: Pick", out());
    }

    @Test
    void withoutPrefixesEverythingPasses() throws Exception {
        LineDropFilter none = new LineDropFilter(target, List.of());
        none.write((NOTE + "\n").getBytes(StandardCharsets.UTF_8));
        assertEquals(NOTE + "\n", out());
    }
}
