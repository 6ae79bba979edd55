package org.mpirunft.membership.internal;

import java.io.DataInput;
import java.io.DataOutput;
import org.jgroups.Header;

/**
 * A JGroups header that carries nothing: its presence marks a message as one of ours. JGroups
 * tells headers apart by class and magic id, so each use is a small subclass.
 */
abstract class MarkerHeader extends Header {
    @Override
    public final int serializedSize() {
        return 0;
    }

    @Override
    public final void writeTo(DataOutput out) {
    }

    @Override
    public final void readFrom(DataInput in) {
    }
}
