package io.leasehold.lock.jedis;

import java.io.IOException;
import redis.clients.jedis.Connection;

/**
 * Where a Jedis subscriber's connections come from: borrowed from the user's pool for the node of
 * {@code channel}, given back when clean, marked broken (so the pool destroys it) otherwise.
 * This class is threadsafe.
 */
final class JedisConnector implements BlockingSubscriber.Connector<Connection> {

    private final JedisTopology topology;
    private final String channel;

    JedisConnector(JedisTopology topology, String channel) {
        this.topology = topology;
        this.channel = channel;
    }

    @Override
    public Connection borrow() {
        return topology.connectionFor(channel);
    }

    @Override
    public void giveBack(Connection connection) {
        connection.close();
    }

    @Override
    public void discard(Connection connection) {
        connection.setBroken();
        connection.close();
    }

    @Override
    public void cut(Connection connection) throws IOException {
        JedisInternals.forceDisconnect(connection);
    }
}
