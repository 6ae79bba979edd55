package org.mpirunft.bridge.storage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.mpirunft.common.BadValueException;

/**
 * Where a job's checkpoint parts go, beyond the rank's own copy in memory, and how often: each
 * level (partner or xor, local, shared) with its interval in epochs. {@code partner,local,shared:8}
 * sends every epoch's part to a partner rank on another node and writes it to node-local disk,
 * and every 8th epoch also to shared storage. An epoch commits once its parts are whole at each
 * of its levels.
 *
 * <p>The one parser of the setting: the rank library reads it from its environment, mpirun-ft
 * checks its option and config key with it.
 */
public record StorageLevels(Map<Level, Integer> every) {
    /** A storage level; the rank's own copy in memory is not one ({@code mpirunft.checkpoint.memory}). */
    public enum Level {
        /** In the memory of a rank on another node (SCR's PARTNER): survives the loss of this node, not of both. */
        PARTNER,
        /**
         * Parity in the memory of the ranks of an XOR set on other nodes (SCR's XOR): survives the
         * loss of one node per set, for about 1/(k-1) of a part's memory per rank in sets of k.
         */
        XOR,
        /** This node's local disk: survives a restart of the rank on this node. */
        LOCAL,
        /** Shared storage: survives the loss of any node, and a relaunch of the whole job. */
        SHARED;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Today's default: every epoch to node-local disk, then to shared storage. */
    public static final StorageLevels DEFAULT = new StorageLevels(Map.of(Level.LOCAL, 1, Level.SHARED, 1));

    public StorageLevels {
        if (every.isEmpty()) {
            throw new IllegalArgumentException("at least one storage level is needed");
        }
        every.values().forEach(n -> {
            if (n < 1) {
                throw new IllegalArgumentException("a level's interval must be >= 1 epoch, got " + n);
            }
        });
        every = Collections.unmodifiableMap(new EnumMap<>(every));
    }

    /**
     * Parses {@code partner,local,shared:8}: levels separated by commas, each once, each with an
     * optional interval in epochs ({@code :N}, 1 if left out).
     *
     * @throws BadValueException naming {@code setting} and what is wrong
     */
    public static StorageLevels parse(String setting, String text) {
        Map<Level, Integer> every = new EnumMap<>(Level.class);
        for (String item : text.split(",", -1)) {
            String spec = item.strip();
            if (spec.isEmpty()) {
                throw new BadValueException(setting, "lists an empty level in '" + text + "'; levels are partner, xor, local, shared");
            }
            String[] nameAndEvery = spec.split(":", -1);
            if (nameAndEvery.length > 2) {
                throw new BadValueException(setting, "'" + spec + "' is not LEVEL or LEVEL:EPOCHS");
            }
            Level level = levelNamed(setting, nameAndEvery[0].strip());
            int interval = 1;
            if (nameAndEvery.length == 2) {
                try {
                    interval = Integer.parseInt(nameAndEvery[1].strip());
                } catch (NumberFormatException e) {
                    interval = 0;
                }
                if (interval < 1) {
                    throw new BadValueException(setting, "'" + spec + "' needs a whole number of epochs >= 1 after ':'");
                }
            }
            if (every.put(level, interval) != null) {
                throw new BadValueException(setting, "names " + level.label() + " twice in '" + text + "'");
            }
        }
        if (every.containsKey(Level.PARTNER) && every.containsKey(Level.XOR)) {
            throw new BadValueException(setting, "names both partner and xor in '" + text + "'; they are two ways of keeping"
                    + " a part on another node, pick one");
        }
        return new StorageLevels(every);
    }

    private static Level levelNamed(String setting, String name) {
        for (Level level : Level.values()) {
            if (level.label().equals(name.toLowerCase(Locale.ROOT))) {
                return level;
            }
        }
        throw new BadValueException(setting, "'" + name + "' is no storage level; levels are partner, xor, local, shared");
    }

    /** The levels epoch {@code epoch} goes to: each whose interval divides the epoch's number. */
    public Set<Level> levelsOf(long epoch) {
        Set<Level> levels = EnumSet.noneOf(Level.class);
        every.forEach((level, n) -> {
            if (epoch % n == 0) {
                levels.add(level);
            }
        });
        return levels;
    }

    public boolean uses(Level level) {
        return every.containsKey(level);
    }

    /** The form {@link #parse} reads: {@code partner,local,shared:8}. */
    public String render() {
        List<String> items = new ArrayList<>();
        every.forEach((level, n) -> items.add(n == 1 ? level.label() : level.label() + ":" + n));
        return String.join(",", items);
    }

    @Override
    public String toString() {
        return render();
    }
}
