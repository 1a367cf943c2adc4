package io.leasehold.examples;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The fallback when no Redis is at hand: locks in one {@link InMemoryLockBackend} store (each node
 * gets its own view of it, as each would get its own Redis connection) and the stock in an
 * {@link InMemoryStock}. Both pay a simulated network round trip.
 */
final class InMemoryDemoBackend implements DemoBackend {

    static final Duration ROUND_TRIP = Duration.ofNanos(250_000);

    private final String why;
    private final InMemoryLockBackend store = new InMemoryLockBackend();
    private final InMemoryStock stock = new InMemoryStock(ROUND_TRIP);
    private final List<Node> nodes = new ArrayList<>();

    InMemoryDemoBackend(String why) {
        this.why = why;
        store.setLatency(ROUND_TRIP);
    }

    @Override
    public String description() {
        return why + ": using InMemoryLockBackend (same semantics as the Lua scripts, in this JVM) with a simulated "
                + ROUND_TRIP.toNanos() / 1000 + " microsecond network round trip";
    }

    @Override
    public synchronized Node newNode(String name, LockEventListener listener) {
        Node node = new Node(
                name, LockClient.builder(store.newNode()).listener(listener).build(), stock.connect());
        nodes.add(node);
        return node;
    }

    @Override
    public synchronized void close() {
        nodes.forEach(node -> node.locks().close());
        store.close();
    }
}
