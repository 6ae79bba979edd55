package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.mpirunft.daemon.FtdConfigReader;
import org.mpirunft.membership.MembershipConfig;

/**
 * The cluster secret's file ({@code group.secret-file}). Whoever can read it can join the group,
 * decrypt its traffic and order any daemon about, so only root may: the file must belong to root
 * (uid 0) and have no group or other permission bits. Anything else is refused before the
 * daemon reads a byte of it, with one line saying how to fix it.
 */
final class SecretFile {
    private SecretFile() {
    }

    /** @throws FtdConfigReader.ConfigException when the file is missing, readable by others than root, or too short */
    static byte[] read(Path file) {
        try {
            int owner = (Integer) Files.getAttribute(file, "unix:uid");
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            boolean othersMayRead = permissions.stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"));
            if (owner != 0 || othersMayRead) {
                throw new FtdConfigReader.ConfigException("cluster secret " + file + " must be readable by root only (owner uid "
                        + owner + ", mode " + PosixFilePermissions.toString(permissions) + "); chown root:root " + file
                        + " && chmod 600 " + file);
            }
            byte[] secret = Files.readAllBytes(file);
            if (secret.length < MembershipConfig.MIN_SECRET_BYTES) {
                throw new FtdConfigReader.ConfigException("cluster secret " + file + " holds " + secret.length + " bytes; at least "
                        + MembershipConfig.MIN_SECRET_BYTES + " are needed (e.g. head -c 32 /dev/urandom > " + file + ")");
            }
            return secret;
        } catch (IOException e) {
            String why = switch (e) {
                case NoSuchFileException missing -> "no such file";
                case AccessDeniedException denied -> "permission denied";
                default -> e.getMessage();
            };
            throw new FtdConfigReader.ConfigException("cannot read the cluster secret " + file + ": " + why);
        }
    }
}
