package org.mpirunft.bridge.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AotTrainingTest {
    @TempDir
    Path dir;

    @Test
    void onlyAJdk25OrNewerOnJarsAloneCanTrain() throws IOException {
        Path app = Files.writeString(dir.resolve("app.jar"), "jar");
        Path lib = Files.writeString(dir.resolve("lib.jar"), "jar");
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(classes.resolve("App.class"), "class");
        String jars = app + File.pathSeparator + lib;
        assertTrue(AotTraining.canTrain(25, jars, Optional.empty()));
        assertTrue(AotTraining.canTrain(26, jars, Optional.of("")));
        assertFalse(AotTraining.canTrain(21, jars, Optional.empty()), "no -XX:AOTCacheOutput before JDK 25");
        assertFalse(AotTraining.canTrain(25, classes + File.pathSeparator + jars, Optional.empty()),
                "a directory of classes makes the JVM's cache writing fail and its exit status 1");
        assertFalse(AotTraining.canTrain(25, jars + File.pathSeparator + dir.resolve("missing.jar"), Optional.empty()));
        assertFalse(AotTraining.canTrain(25, jars, Optional.of(dir.toString())), "no module path");
        assertFalse(AotTraining.canTrain(25, "", Optional.empty()));
    }

    @Test
    void thisJvmAnswersInTheMarkerOnlyIfItCan() throws IOException {
        Path marker = dir.resolve("key.trainable");
        AotTraining.answer(marker);
        String classPath = System.getProperty("java.class.path");
        boolean can = AotTraining.canTrain(Runtime.version().feature(), classPath, Optional.ofNullable(System.getProperty("jdk.module.path")));
        assertEquals(can, Files.exists(marker), "surefire's class path: " + classPath);
        if (can) {
            assertEquals(classPath + "\n", Files.readString(marker));
        }
        try (var left = Files.list(dir)) {
            assertEquals(can ? 1 : 0, left.count(), "no partial file left");
        }
    }
}
