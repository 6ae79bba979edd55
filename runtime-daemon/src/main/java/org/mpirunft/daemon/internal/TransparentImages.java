package org.mpirunft.daemon.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.mpirunft.common.FileTrees;
import org.mpirunft.common.JobOwner;
import org.mpirunft.common.PrivateDirectories;
import org.mpirunft.daemon.protocol.PeerMessage.TransparentPart;

/**
 * Where transparent jobs' CRIU images are kept, and their life there: each node's own images of
 * a job's epochs ({@code transparent.images/JOB/epoch-N}, with the restores' work in
 * {@code restore-N}), the epochs on shared storage ({@code SHARED/.transparent/USER/JOB/epoch-N/NODE}),
 * the copy from one to the other with every file's checksum, the check that a part is whole
 * before it is restored, and the pruning of epochs no longer needed. Both places are
 * {@link RootOnlyDirectory}: root restores what it finds there, and the images hold the job's
 * memory.
 */
final class TransparentImages {
    private static final Logger LOG = Logger.getLogger(TransparentImages.class.getName());

    private final String node;
    /** This node's images ({@code transparent.images}). */
    private final Path local;

    TransparentImages(String node, Path local) {
        this.node = node;
        this.local = local;
    }

    /**
     * The directory on the site's shared storage that holds every transparent job's epochs,
     * root's alone: its name begins with a dot, which no user's directory there has
     * ({@link PrivateDirectories#ofUser}), so no user can have made it first under their name.
     */
    static Path imagesOnShared(Path sharedStorage) {
        return sharedStorage.resolve(".transparent");
    }

    /** Where {@code node}'s part of {@code epoch} is kept on shared storage ({@code images}: {@link #imagesOnShared}). */
    static Path sharedPart(Path images, String user, String job, long epoch, String node) {
        return epochDirectory(images, user, job, epoch).resolve(node);
    }

    static Path epochDirectory(Path images, String user, String job, long epoch) {
        return jobDirectory(images, user, job).resolve("epoch-" + epoch);
    }

    /** Where {@code user}'s {@code job}'s transparent epochs and its restores' record are kept: {@code images/USER/JOB}. */
    static Path jobDirectory(Path images, String user, String job) {
        return PrivateDirectories.ofUser(images, user).resolve(job);
    }

    /** This node's images, root's alone (made at first use, refused if another's). */
    private Path localImages() {
        return RootOnlyDirectory.ensure(local);
    }

    /** This node's own dump of {@code job}'s {@code epoch}. */
    Path localPart(String job, long epoch) {
        return localImages().resolve(job).resolve("epoch-" + epoch);
    }

    /** Where a restore of {@code job}'s {@code epoch} here keeps CRIU's work. */
    Path restoreWork(String job, long epoch) {
        return localImages().resolve(job).resolve("restore-" + epoch);
    }

    /**
     * Deletes this node's images of {@code job}'s epochs before {@code epoch} (their dumps and
     * their restores' work), and the job's directory once none is left: each dump of a large job
     * is as big as its memory.
     */
    void prune(String job, long epoch) {
        Path dir = localImages().resolve(job);
        deleteEpochsBefore(dir, epoch, "epoch-", "restore-");
        try {
            Files.deleteIfExists(dir);
        } catch (java.nio.file.DirectoryNotEmptyException e) {
            // An epoch kept.
        } catch (IOException e) {
            LOG.warning(node + ": cannot delete " + dir + ": " + e.getMessage());
        }
    }

    /** Deletes the directories {@code PREFIX-N} in {@code dir} with N before {@code epoch}, for each prefix given. */
    static void deleteEpochsBefore(Path dir, long epoch, String... prefixes) {
        if (!Files.isDirectory(dir)) {
            return;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                for (String prefix : prefixes) {
                    if (name.startsWith(prefix) && name.substring(prefix.length()).matches("[0-9]{1,18}")
                            && Long.parseLong(name.substring(prefix.length())) < epoch) {
                        FileTrees.delete(entry);
                    }
                }
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            LOG.warning("cannot prune the epochs in " + dir + ": " + e.getMessage());
        }
    }

    /**
     * Copies the dumped epoch to shared storage ({@code images}: {@link #imagesOnShared}); returns
     * the part with every file's checksum. CRIU's logs and the dump's hook stay here.
     */
    TransparentPart stage(String job, long epoch, Path images, JobOwner owner, TransparentPart dumped) {
        Path from = localPart(job, epoch);
        Path to = sharedPart(RootOnlyDirectory.check(images), owner.name(), job, epoch, node);
        Map<String, String> sums = new TreeMap<>();
        try {
            FileTrees.delete(to);
            Files.createDirectories(to);
            try (Stream<Path> files = Files.list(from)) {
                for (Path file : files.filter(Files::isRegularFile).sorted().toList()) {
                    String name = file.getFileName().toString();
                    if (name.endsWith(".log") || name.equals(NodeLocalArchive.HOOK)) {
                        continue;
                    }
                    Files.copy(file, to.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
                    sums.put(file.getFileName().toString(), sha256(file));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(node + ": cannot stage epoch " + epoch + " of " + job + " to " + to + ": " + e.getMessage(), e);
        }
        return new TransparentPart(node, dumped.hostname(), dumped.address(), dumped.root(), dumped.bytes(), sums, dumped.ids(),
                dumped.dumpMillis(), dumped.endpoints());
    }

    /**
     * Where {@code part} of {@code epoch} is restored from: this node's own part from node-local
     * storage when it is whole, otherwise (and for a lost node's part) from shared storage
     * ({@code images}), which must be whole.
     */
    Path restoreSource(String job, long epoch, Path images, JobOwner owner, TransparentPart part) {
        Path own = localPart(job, epoch);
        Path dir = part.node().equals(node) && whole(own, part) ? own
                : sharedPart(RootOnlyDirectory.check(images), owner.name(), job, epoch, part.node());
        if (!whole(dir, part)) {
            throw new IllegalStateException(node + ": epoch " + epoch + " of " + job + " for " + part.node()
                    + " is not whole in " + dir + " (a file is missing or its checksum differs from the manifest's)");
        }
        return dir;
    }

    /** Whether every file the manifest lists is in {@code dir} with its checksum. */
    private static boolean whole(Path dir, TransparentPart part) {
        if (part.sha256().isEmpty()) {
            return false;
        }
        for (Map.Entry<String, String> file : part.sha256().entrySet()) {
            Path path = dir.resolve(file.getKey());
            try {
                if (!Files.isRegularFile(path) || !sha256(path).equals(file.getValue())) {
                    return false;
                }
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /** The bytes of the regular files in {@code dir} (a dump's size), 0 if it cannot be read. */
    static long size(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
        } catch (IOException e) {
            return 0;
        }
    }

    static String sha256(Path file) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            byte[] buffer = new byte[1 << 16];
            int n;
            while ((n = in.read(buffer)) > 0) {
                digest.update(buffer, 0, n);
            }
            return HexFormat.of().formatHex(digest.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
