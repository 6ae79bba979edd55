package org.mpirunft.membership.internal;

import java.util.function.Supplier;
import org.jgroups.Header;

/**
 * Marks a message as an application message ({@code Membership.broadcast} and {@code send}):
 * its payload is the application's bytes, handed to the message listeners as they are, not one
 * of the service's own {@link WireMessage}s. No protocol handles it; it travels through the
 * reliable layers like any message.
 */
public class AppMessageHeader extends MarkerHeader {
    public AppMessageHeader() {
    }

    @Override
    public short getMagicId() {
        return GroupIds.APP_MESSAGE_HEADER;
    }

    @Override
    public Supplier<? extends Header> create() {
        return AppMessageHeader::new;
    }

    @Override
    public String toString() {
        return "mpirunft-app";
    }
}
