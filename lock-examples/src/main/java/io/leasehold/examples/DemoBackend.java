package io.leasehold.examples;

import io.leasehold.lock.LockEventListener;

/** Where the demo's locks and stock live: a Redis server or the in-memory stand-in. */
interface DemoBackend extends AutoCloseable {

    /** One line saying what this backend is and where it came from. */
    String description();

    /**
     * A new node with its own lock client (reporting to {@code listener}) and stock connection;
     * closed by {@link #close()}.
     */
    Node newNode(String name, LockEventListener listener);

    /** Closes every node, then whatever this backend started. */
    @Override
    void close();
}
