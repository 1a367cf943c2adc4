package io.leasehold.examples;

/** Where the demo's locks and stock live: a Redis server or the in-memory stand-in. */
interface DemoBackend extends AutoCloseable {

    /** One line saying what this backend is and where it came from. */
    String description();

    /** A new node with its own lock client and stock connection; closed by {@link #close()}. */
    Node newNode(String name);

    /** Closes every node, then whatever this backend started. */
    @Override
    void close();
}
