package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Transparent mode's image directories: made root's alone, and refused when anyone else could have made or could swap them. */
class RootOnlyDirectoryTest {
    @TempDir
    Path base;

    @Test
    void aMissingDirectoryIsMadeMode0700() throws Exception {
        Path images = RootOnlyDirectory.ensure(base.resolve("a/b/images"));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(images)));
        assertEquals(images, RootOnlyDirectory.ensure(images), "the daemon's own is taken as it is");
    }

    @Test
    void oneOpenToOthersASymbolicLinkOrOneInAnotherUsersParentIsRefusedWithOneLine() throws Exception {
        Path open = Files.createDirectory(base.resolve("open"));
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rwxr-xr-x"));
        String refused = assertThrows(IllegalStateException.class, () -> RootOnlyDirectory.ensure(open)).getMessage();
        assertTrue(refused.startsWith(open + " is open to others (mode rwxr-xr-x)") && refused.endsWith("the daemon makes it again")
                && !refused.contains("\n"), refused);

        Path target = RootOnlyDirectory.ensure(base.resolve("target"));
        Path link = Files.createSymbolicLink(base.resolve("link"), target);
        assertTrue(assertThrows(IllegalStateException.class, () -> RootOnlyDirectory.check(link)).getMessage()
                .contains("is not a directory (a symbolic link is refused too)"));

        assumeTrue(System.getProperty("user.name").equals("root"), "chown needs root");
        Path users = Files.createDirectory(base.resolve("users"));
        Path inside = RootOnlyDirectory.ensure(users.resolve("images"));
        Files.setAttribute(users, "unix:uid", 65534);
        assertTrue(assertThrows(IllegalStateException.class, () -> RootOnlyDirectory.check(inside)).getMessage()
                .contains(users + " belongs to nobody, who could replace " + inside), "its owner could rename it away");
        Files.setAttribute(inside, "unix:uid", 65534);
        Files.setAttribute(users, "unix:uid", 0);
        assertTrue(assertThrows(IllegalStateException.class, () -> RootOnlyDirectory.check(inside)).getMessage()
                .contains(inside + " belongs to nobody, not to root"), "a user's directory of that name, made first");
    }

    @Test
    void aStickyParentOfAnyOwnerIsAPlaceForIt() throws Exception {
        Path storage = Files.createDirectory(base.resolve("storage"));
        Files.setPosixFilePermissions(storage, PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.setAttribute(storage, "unix:mode", 01777);
        assertEquals(storage.resolve(".transparent"), RootOnlyDirectory.ensure(storage.resolve(".transparent")));
    }
}
