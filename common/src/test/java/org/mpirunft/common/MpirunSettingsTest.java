package org.mpirunft.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.mpirunft.common.MpirunSettings.Setting;

class MpirunSettingsTest {
    @Test
    void withoutUlfmOnlyTheSettingsEveryJobNeedsAndNoAgentUnlessGiven() {
        assertEquals(List.of("--mca", "coll", "^han", "--prtemca", "plm_ssh_no_tree_spawn", "1", "--bind-to", "none",
                        "--mca", "mpi_yield_when_idle", "1"),
                MpirunSettings.recovery(false, null).stream().flatMap(s -> s.argv().stream()).toList());
    }

    @Test
    void aSettingIsSetByTheUserUnderAnySpellingOfItsOptionButNotByAnotherKey() {
        Setting bind = Setting.option("--bind-to", "none");
        assertTrue(bind.isSetIn(List.of("--bind-to", "core")), "--bind-to core");
        assertTrue(bind.isSetIn(List.of("-bind-to", "core")), "-bind-to core");
        assertTrue(bind.isSetIn(List.of("--bind-to=core")), "--bind-to=core");
        assertFalse(bind.isSetIn(List.of("--bind-to-core")), "another option that starts alike");
        Setting coll = Setting.mca("coll", "^han");
        assertTrue(coll.isSetIn(List.of("-mca", "coll", "tuned")), "-mca coll");
        assertFalse(coll.isSetIn(List.of("--mca", "coll_tuned_use_dynamic_rules", "1")), "another key");
        assertFalse(coll.isSetIn(List.of("--prtemca", "coll", "x")), "the key under another kind");
    }
}
