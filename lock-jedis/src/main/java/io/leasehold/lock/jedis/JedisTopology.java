package io.leasehold.lock.jedis;

import redis.clients.jedis.Connection;

/**
 * What differs between a standalone server, a Sentinel-managed master and a cluster: where a
 * subscriber connection comes from, which node a channel lives on, and a key's slot. Connections are
 * always borrowed from the pool of the user's client, never opened beside it.
 *
 * <p>Implementations are threadsafe. {@link #connectionFor} blocks (it borrows and may connect), so
 * it is only called on the backend's own threads.
 */
interface JedisTopology {

    /** Borrows a connection to the node that serves {@code channel}; the caller closes it (back to the pool). */
    Connection connectionFor(String channel);

    /** The node that serves {@code channel} (one name for all channels outside a cluster). Blocks like {@link #connectionFor}. */
    String nodeOf(String channel);

    /**
     * The most connections the client's pool (in a cluster: each node's pool) may hold, or a
     * negative number when it is unbounded.
     */
    int poolMaxTotal();

    /** The cluster slot of {@code key}; 0 outside a cluster. */
    default int slot(String key) {
        return 0;
    }

    /** Asks the client to learn the topology again (a cluster after a slot moved); a no-op outside a cluster. */
    default void refresh() {}
}
