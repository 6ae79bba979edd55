package org.mpirunft.membership.internal;

import java.util.ArrayList;
import java.util.List;
import org.jgroups.Event;
import org.jgroups.Message;
import org.jgroups.stack.Protocol;
import org.jgroups.util.MessageBatch;

/** A capturing stub above a protocol under test and a no-op below it that records what was sent. */
final class StubProtocols {
    private StubProtocols() {
    }

    static final class Capture extends Protocol {
        final List<Object> up = new ArrayList<>();
        final List<Message> down = new ArrayList<>();

        @Override
        public Object up(Event evt) {
            up.add(evt);
            return null;
        }

        @Override
        public Object up(Message msg) {
            up.add(msg);
            return null;
        }

        @Override
        public void up(MessageBatch batch) {
            batch.forEach(up::add);
        }

        @Override
        public Object down(Message msg) {
            down.add(msg);
            return null;
        }

        @Override
        public Object down(Event evt) {
            return null;
        }
    }

    /** Wires above - middle - below. */
    static void stack(Protocol above, Protocol middle, Protocol below) {
        above.setDownProtocol(middle);
        middle.setUpProtocol(above);
        middle.setDownProtocol(below);
        below.setUpProtocol(middle);
    }
}
