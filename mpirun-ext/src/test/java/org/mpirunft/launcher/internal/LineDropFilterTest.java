package org.mpirunft.launcher.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class LineDropFilterTest {
    private static final String NOTE = "NOTE: Picked up JDK_JAVA_OPTIONS: -XX:AOTCache=/ck/a.aot";
    private final ByteArrayOutputStream target = new ByteArrayOutputStream();
    private final LineDropFilter filter = new LineDropFilter(target, List.of(LineDropFilter.Drop.startingWith(NOTE),
            new LineDropFilter.Drop("Picked up JAVA_TOOL_OPTIONS: ", " -XX:AOTCacheOutput=/ck/a.pid")));

    private void write(String text) throws Exception {
        filter.write(text.getBytes(StandardCharsets.UTF_8));
    }

    private String out() {
        return target.toString(StandardCharsets.UTF_8);
    }

    @Test
    void dropsTheLinesThatStartWithAPrefixAndPassesTheRest() throws Exception {
        write("rank 0: héllo\n" + NOTE + "\nPicked up JAVA_TOOL_OPTIONS: -Djava.class.path=a.jar -Xmx1g -XX:AOTCacheOutput=/ck/a.pid12.aot"
                + " -XX:AOTMode=create\n");
        write("NOTE: something else\nPicked up nothing\nPicked up JAVA_TOOL_OPTIONS: -Xmx2g\n");
        filter.finish();
        assertEquals("rank 0: héllo\nNOTE: something else\nPicked up nothing\nPicked up JAVA_TOOL_OPTIONS: -Xmx2g\n", out(),
                "the user's own JAVA_TOOL_OPTIONS line stays");
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
    void aLineThatMustBeLookedIntoIsHeldToItsEndAndNoLonger() throws Exception {
        write("Picked up JAVA_TOOL_OPTIONS: -Xmx2g");
        assertEquals("", out());
        write(" -Dx=1\nnext");
        assertEquals("Picked up JAVA_TOOL_OPTIONS: -Xmx2g -Dx=1\nnext", out());
        write("\nPicked up JAVA_TOOL_OPTIONS: " + "y".repeat(LineDropFilter.MAX_HELD));
        assertTrue(out().endsWith("y".repeat(100)), "an overlong line is let out before it ends");
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
