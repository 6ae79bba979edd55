package org.mpirunft.membership.internal;

import org.jgroups.conf.ClassConfigurator;

/**
 * The JGroups protocol ids and header magic numbers of this module's protocols, registered once
 * per JVM. JGroups reserves protocol ids below 512 and magic numbers below 1024 for itself.
 */
final class GroupIds {
    static final short EVENT_TAP_PROTOCOL = 1700;
    static final short EXPULSION_PROBE_PROTOCOL = 1701;
    static final short EVENT_TAP_HEADER = 1700;
    static final short EXPULSION_PROBE_HEADER = 1701;
    static final short SECRET_TOKEN = 1702;
    /** Marks application messages; also the key the header is stored under (no protocol reads it). */
    static final short APP_MESSAGE_HEADER = 1703;

    private static boolean registered; // guarded by GroupIds.class

    private GroupIds() {
    }

    static synchronized void register() {
        if (registered) {
            return;
        }
        registered = true; // first: registering a class may initialize it, which comes back here
        ClassConfigurator.addProtocol(EVENT_TAP_PROTOCOL, EventTap.class);
        ClassConfigurator.addProtocol(EXPULSION_PROBE_PROTOCOL, ExpulsionProbe.class);
        ClassConfigurator.add(EVENT_TAP_HEADER, EventTap.TapHeader.class);
        ClassConfigurator.add(EXPULSION_PROBE_HEADER, ExpulsionProbe.ProbeHeader.class);
        ClassConfigurator.add(SECRET_TOKEN, SecretToken.class);
        ClassConfigurator.add(APP_MESSAGE_HEADER, AppMessageHeader.class);
    }
}
