package org.mpirunft.membership.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.util.List;
import org.jgroups.Address;
import org.jgroups.View;
import org.jgroups.util.ExtendedUUID;
import org.jgroups.util.UUID;
import org.jgroups.util.Util;
import org.junit.jupiter.api.Test;
import org.mpirunft.membership.NodeMetadata;
import org.mpirunft.membership.NodeRole;

class MetadataCodecTest {
    private static final NodeMetadata SPARE = NodeMetadata.spare("spare1", 8, InetSocketAddress.createUnresolved("10.1.2.3", 7100));

    @Test
    void metadataTravelsInsideTheAddressOfEveryView() throws Exception {
        ExtendedUUID self = MetadataCodec.newAddress(SPARE);
        View view = View.create(self, 3, self, UUID.randomUUID());

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        view.writeTo(new DataOutputStream(bytes));
        View received = new View();
        received.readFrom(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

        Address first = received.getMembers().getFirst();
        assertEquals(SPARE, MetadataCodec.metadataOf(first), "metadata read back from a serialized view");
        assertEquals(MetadataCodec.idOf(self), MetadataCodec.idOf(first), "same member id");
        assertEquals(NodeRole.UNKNOWN, MetadataCodec.metadataOf(received.getMembers().get(1)).role(),
                "an address without metadata gets a placeholder");
    }

    @Test
    void addressSurvivesJGroupsAddressSerialization() throws Exception {
        ExtendedUUID self = MetadataCodec.newAddress(SPARE);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Util.writeAddress(self, new DataOutputStream(bytes));
        Address back = Util.readAddress(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));
        assertEquals(self, back);
        assertEquals(SPARE, MetadataCodec.metadataOf(back));
    }

    @Test
    void metadataIsVersionedJson() {
        String json = new String(MetadataCodec.encode(SPARE));
        assertEquals("{\"v\":1,\"name\":\"spare1\",\"role\":\"SPARE\",\"slots\":8,\"controlHost\":\"10.1.2.3\",\"controlPort\":7100}", json);
    }

    @Test
    void metadataThatDoesNotFitInAnAddressIsRejected() {
        String host = "\u00e9".repeat(100); // 100 characters, 200 bytes in UTF-8
        String name = "n".repeat(63);
        NodeMetadata big = new NodeMetadata(name, NodeRole.COMPUTE, 1, InetSocketAddress.createUnresolved(host, 1));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> MetadataCodec.encode(big));
        assertTrue(e.getMessage().contains("shorten"), e.getMessage());
    }

    @Test
    void eachIncarnationGetsItsOwnId() {
        List<String> ids = List.of(MetadataCodec.idOf(MetadataCodec.newAddress(SPARE)), MetadataCodec.idOf(MetadataCodec.newAddress(SPARE)));
        assertTrue(!ids.get(0).equals(ids.get(1)), "two addresses of one node must differ: " + ids);
    }
}
