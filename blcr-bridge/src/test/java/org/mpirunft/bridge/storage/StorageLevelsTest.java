package org.mpirunft.bridge.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mpirunft.bridge.storage.StorageLevels.Level;
import org.mpirunft.common.BadValueException;

class StorageLevelsTest {
    @TempDir
    Path dir;

    @Test
    void eachLevelHasItsOwnIntervalInEpochs() {
        StorageLevels levels = StorageLevels.parse("levels", " partner , shared:8,local:2");
        assertEquals(EnumSet.of(Level.PARTNER), levels.levelsOf(1));
        assertEquals(EnumSet.of(Level.PARTNER, Level.LOCAL), levels.levelsOf(2));
        assertEquals(EnumSet.of(Level.PARTNER, Level.LOCAL, Level.SHARED), levels.levelsOf(16));
        assertEquals("partner,local:2,shared:8", levels.render());
        assertEquals(levels, StorageLevels.parse("levels", levels.render()));
        assertEquals(StorageLevels.DEFAULT, StorageLevels.parse("levels", "local,shared"));
        assertEquals(Set.of(), StorageLevels.parse("levels", "shared:8").levelsOf(3), "an epoch only the ranks' memory holds");
        assertEquals(EnumSet.of(Level.XOR, Level.SHARED), StorageLevels.parse("levels", "xor,shared:4").levelsOf(4));
    }

    @Test
    void badLevelsAreRefusedNamingTheSettingAndWhatIsWrong() {
        assertRefused("tape", "levels: 'tape' is no storage level; levels are partner, xor, local, shared");
        assertRefused("partner,,shared", "levels: lists an empty level in 'partner,,shared'; levels are partner, xor, local, shared");
        assertRefused("partner,xor:2", "levels: names both partner and xor in 'partner,xor:2'; they are two ways of keeping a part on"
                + " another node, pick one");
        assertRefused("", "levels: lists an empty level in ''");
        assertRefused("shared:0", "levels: 'shared:0' needs a whole number of epochs >= 1 after ':'");
        assertRefused("shared:x", "levels: 'shared:x' needs a whole number of epochs >= 1 after ':'");
        assertRefused("shared:1:2", "levels: 'shared:1:2' is not LEVEL or LEVEL:EPOCHS");
        assertRefused("local,LOCAL:2", "levels: names local twice in 'local,LOCAL:2'");
    }

    @Test
    void aManifestSaysWhichLevelsHoldItsEpochAndOneFromBeforeLevelsIsOnDisk() throws Exception {
        CheckpointStore store = new CheckpointStore(dir, "job1");
        List<PartRecord> parts = List.of(new PartRecord(0, CheckpointStore.partFileName(0), 3, 7));
        EpochManifest partner = EpochManifest.of("job1", 4, 40, parts, EnumSet.of(Level.SHARED, Level.PARTNER));
        assertEquals(List.of("partner", "shared"), partner.levels());
        List<EpochManifest> back = CheckpointStore.decodeManifests(CheckpointStore.encodeManifests(List.of(partner)));
        assertEquals(List.of(partner), back);

        Path epoch = Files.createDirectories(store.epochDirectory(2));
        Files.writeString(epoch.resolve("manifest.json"), "{\"version\":1,\"job\":\"job1\",\"epoch\":2,\"iteration\":20,\"worldSize\":1,"
                + "\"parts\":[{\"rank\":0,\"file\":\"rank-000000.part\",\"bytes\":3,\"crc32c\":7}]}", StandardCharsets.UTF_8);
        EpochManifest old = store.committedEpochs().getFirst();
        assertEquals(List.of("local", "shared"), old.levels(), "version 1 wrote every epoch to local and shared storage");
        assertEquals(true, old.holds(Level.SHARED));
        assertEquals(false, old.holds(Level.PARTNER));
    }

    private static void assertRefused(String text, String message) {
        BadValueException e = assertThrows(BadValueException.class, () -> StorageLevels.parse("levels", text));
        assertEquals(true, e.getMessage().startsWith(message), e.getMessage());
    }
}
