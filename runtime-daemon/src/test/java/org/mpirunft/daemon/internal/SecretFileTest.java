package org.mpirunft.daemon.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.daemon.FtdConfigReader;

/** Only root may be able to read the cluster secret; the daemon refuses any other file with one line. */
class SecretFileTest {
    private static final byte[] SECRET = "a-cluster-secret-of-32-bytes-000".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path dir;
    Path file;

    @BeforeEach
    void writeSecret() throws Exception {
        // Ownership is the point of these tests: they chown, which only root can do.
        assumeTrue((Integer) Files.getAttribute(dir, "unix:uid") == 0 && "root".equals(System.getProperty("user.name")),
                "runs as root (the daemon does)");
        file = dir.resolve("secret");
        Files.write(file, SECRET);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    @Test
    void readsARootOwnedFileOnlyRootCanRead() {
        assertArrayEquals(SECRET, SecretFile.read(file));
    }

    @Test
    void refusesAFileItsGroupOrOthersCanRead() throws Exception {
        for (String mode : new String[] {"rw-r-----", "rw----r--", "r-----r--", "rw-rw-rw-"}) {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
            assertRefused("(owner uid 0, mode " + mode + ")");
        }
    }

    @Test
    void refusesAFileRootDoesNotOwnEvenWithMode600() throws Exception {
        Files.setAttribute(file, "unix:uid", 65534);
        assertRefused("(owner uid 65534, mode rw-------)");
    }

    @Test
    void refusesAShortOrMissingSecret() throws Exception {
        Files.write(file, "short".getBytes(StandardCharsets.UTF_8));
        assertEquals("cluster secret " + file + " holds 5 bytes; at least 16 are needed (e.g. head -c 32 /dev/urandom > " + file + ")",
                assertThrows(FtdConfigReader.ConfigException.class, () -> SecretFile.read(file)).getMessage());
        Path missing = dir.resolve("missing");
        assertEquals("cannot read the cluster secret " + missing + ": no such file",
                assertThrows(FtdConfigReader.ConfigException.class, () -> SecretFile.read(missing)).getMessage());
    }

    private void assertRefused(String detail) {
        String message = assertThrows(FtdConfigReader.ConfigException.class, () -> SecretFile.read(file)).getMessage();
        assertEquals("cluster secret " + file + " must be readable by root only " + detail + "; chown root:root " + file
                + " && chmod 600 " + file, message);
    }
}
