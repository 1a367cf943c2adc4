package io.leasehold.lock.jedis;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.BuilderFactory;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisMovedDataException;

/**
 * One script call on a connection the backend borrows itself (from the pool of the node that serves
 * the first key), rather than through {@code UnifiedJedis}, so that the backend holds the connection:
 * a call that finds the backend closed once it has its connection sends nothing (a borrow may wait
 * out a frozen server, which must not send an acquire after {@code close()} returned), and
 * {@link #cutAll()} ends the reads in flight at close. In a cluster, a {@code MOVED} reply refreshes
 * the slot map and the call is sent once more, to the new owner.
 *
 * <p>This class is threadsafe. {@link #run} blocks; it runs on the backend's script threads.
 */
final class ScriptCalls {

    private final JedisTopology topology;
    private final BooleanSupplier closed;
    private final Set<Connection> inUse = ConcurrentHashMap.newKeySet();

    ScriptCalls(JedisTopology topology, BooleanSupplier closed) {
        this.topology = topology;
        this.closed = closed;
    }

    /**
     * Runs {@code EVALSHA} or {@code EVAL}; returns the reply as Jedis decoded it. {@code writing} runs
     * just before each write, once a connection is held (see {@code LockBackend.eval} with a write hook).
     */
    @Nullable
    Object run(Protocol.Command command, String shaOrSource, List<String> keys, List<String> args, Runnable writing) {
        CommandArguments arguments =
                new CommandArguments(command).add(shaOrSource).add(keys.size());
        keys.forEach(arguments::key);
        args.forEach(arguments::add);
        CommandObject<Object> call = new CommandObject<>(arguments, BuilderFactory.ENCODED_OBJECT);
        String route = keys.isEmpty() ? "" : keys.get(0);
        try {
            return once(call, route, writing);
        } catch (JedisMovedDataException moved) {
            topology.refresh(); // the slot moved (resharding, failover): ask the new owner
            return once(call, route, writing);
        }
    }

    /** Disconnects every connection a call is reading on now. */
    void cutAll() {
        for (Connection connection : inUse) {
            try {
                JedisInternals.forceDisconnect(connection);
            } catch (IOException | RuntimeException ignored) {
                // the socket is gone either way
            }
        }
    }

    private @Nullable Object once(CommandObject<Object> call, String route, Runnable writing) {
        Connection connection = topology.connectionFor(route);
        inUse.add(connection);
        try {
            if (closed.getAsBoolean()) {
                connection.setBroken(); // borrowed while closing: send nothing, keep nothing
                throw new IllegalStateException("JedisLockBackend is closed");
            }
            writing.run();
            return connection.executeCommand(call);
        } finally {
            inUse.remove(connection);
            connection.close();
        }
    }
}
