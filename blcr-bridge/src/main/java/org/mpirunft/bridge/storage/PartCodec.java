package org.mpirunft.bridge.storage;

import com.github.luben.zstd.ZstdInputStream;
import com.github.luben.zstd.ZstdOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.mpirunft.common.BadValueException;

/**
 * How a part's bytes are stored on disk: as they are, or compressed with Zstandard (zstd-jni, at
 * its fast level 1). A compressed part's manifest CRC is of the file's bytes, checked before
 * anything is decompressed; the decompressed bytes are a part in the plain format.
 */
public enum PartCodec {
    NONE(""),
    ZSTD("zstd");

    /** Zstandard's fast end: parts are written while the ranks compute, and speed counts more than the last percent. */
    private static final int ZSTD_LEVEL = 1;
    /** Decompressed parts are held in buffers of at most this size, as parts read from disk are. */
    private static final int CHUNK_BYTES = 1 << 30;

    private final String label;

    PartCodec(String label) {
        this.label = label;
    }

    /** As the manifest names it: empty for none. */
    public String label() {
        return label;
    }

    /** The one parser of the setting: {@code none} or {@code zstd}. */
    public static PartCodec parse(String setting, String text) {
        return switch (text.strip().toLowerCase(Locale.ROOT)) {
            case "none", "off" -> NONE;
            case "zstd" -> ZSTD;
            default -> throw new BadValueException(setting, "must be 'none' or 'zstd', got '" + text + "'");
        };
    }

    /** The codec a manifest names; {@code null} or empty (manifests from before codecs) is none. */
    public static PartCodec ofLabel(String label) {
        if (label == null || label.isEmpty()) {
            return NONE;
        }
        for (PartCodec codec : values()) {
            if (codec.label.equals(label)) {
                return codec;
            }
        }
        throw new IllegalArgumentException("part codec '" + label + "' is not known (known: zstd)");
    }

    /**
     * A channel that compresses into {@code file}. Closing it ends the compressed stream and
     * closes {@code file} too, so a caller that keeps writing or forcing the file passes a channel
     * whose close does nothing.
     */
    WritableByteChannel compressing(WritableByteChannel file) throws IOException {
        return Channels.newChannel(new ZstdOutputStream(Channels.newOutputStream(file), ZSTD_LEVEL));
    }

    /** The setting's value that names this codec: {@code none} or {@code zstd}, as {@link #parse} reads it. */
    public String setting() {
        return this == NONE ? "none" : label;
    }

    /** The decompressed bytes of {@code raw} (a whole compressed part), in buffers of at most 1 GiB. */
    List<ByteBuffer> decompress(List<ByteBuffer> raw) throws IOException {
        InputStream source = new InputStream() {
            private int index;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] bytes, int offset, int length) {
                while (index < raw.size() && !raw.get(index).hasRemaining()) {
                    index++;
                }
                if (index >= raw.size()) {
                    return -1;
                }
                ByteBuffer current = raw.get(index);
                int n = Math.min(length, current.remaining());
                current.get(bytes, offset, n);
                return n;
            }
        };
        List<ByteBuffer> out = new ArrayList<>();
        try (InputStream in = new ZstdInputStream(source)) {
            byte[] block = new byte[1 << 20];
            ByteBuffer chunk = null;
            long total = 0;
            for (int n; (n = in.read(block)) > 0; ) {
                int at = 0;
                while (at < n) {
                    if (chunk == null || !chunk.hasRemaining()) {
                        // Doubling, so a small part takes little memory and a large one few buffers.
                        chunk = ByteBuffer.allocate((int) Math.min(CHUNK_BYTES, Math.max(1 << 20, total))).order(ByteOrder.LITTLE_ENDIAN);
                        out.add(chunk);
                    }
                    total += Math.min(n - at, chunk.remaining());
                    int take = Math.min(n - at, chunk.remaining());
                    chunk.put(block, at, take);
                    at += take;
                }
            }
        }
        List<ByteBuffer> filled = new ArrayList<>(out.size());
        for (ByteBuffer chunk : out) {
            filled.add(chunk.flip().slice().order(ByteOrder.LITTLE_ENDIAN));
        }
        return filled;
    }
}
