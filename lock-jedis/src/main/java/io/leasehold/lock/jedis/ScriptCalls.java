package io.leasehold.lock.jedis;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
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
 * <p>A cut alone cannot stop a write: Jedis reconnects a connection whose socket is closed as soon as
 * anyone writes on it. So a call checks that the backend is open and puts its command in the
 * connection's buffer under its own lock, and {@link #cutAll()}, which runs once the backend reads as
 * closed, cuts a connection under that lock: a call that checks after close began sends nothing, and
 * one that checked before may send (close began after it), but a cut then makes its flush or its read
 * fail, and neither reconnects.
 *
 * <p>This class is threadsafe. {@link #run} blocks; it runs on the backend's script threads.
 */
final class ScriptCalls {

    private final JedisTopology topology;
    private final BooleanSupplier closed;
    /**
     * How long {@link #cutAll()} waits for a call to finish writing into its buffer (microseconds
     * normally; a reconnect of a broken pooled connection at most its connect timeout) before it
     * cuts the connection anyway.
     */
    private static final long CUT_WAIT_MILLIS = 1000;

    /** The connections that calls hold now, each with the lock its call writes under. */
    private final Map<Connection, Lock> inUse = new ConcurrentHashMap<>();

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

    /**
     * Disconnects every connection a call holds now. Call it once the backend reads as closed: a
     * call that has not written yet then sends nothing.
     */
    void cutAll() {
        inUse.forEach((connection, writeLock) -> {
            boolean locked = false;
            try {
                locked = writeLock.tryLock(CUT_WAIT_MILLIS, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            try {
                JedisInternals.forceDisconnect(connection);
            } catch (IOException | RuntimeException ignored) {
                // the socket is gone either way
            } finally {
                if (locked) {
                    writeLock.unlock();
                }
            }
        });
    }

    /**
     * {@code connection.executeCommand(call)} in two steps: the command written into the connection's
     * buffer under the call's lock, once the backend is known open; then the flush and the read,
     * which fail on a cut connection rather than reconnect.
     */
    private @Nullable Object once(CommandObject<Object> call, String route, Runnable writing) {
        Connection connection = topology.connectionFor(route);
        Lock writeLock = new ReentrantLock();
        inUse.put(connection, writeLock);
        try {
            writeLock.lock();
            try {
                requireOpen(connection); // borrowed while closing
                writing.run();
                requireOpen(connection); // closed while the hook ran
                connection.sendCommand(call.getArguments());
            } finally {
                writeLock.unlock();
            }
            return call.getBuilder().build(connection.getOne());
        } finally {
            inUse.remove(connection);
            connection.close();
        }
    }

    /** Sends nothing and keeps nothing once the backend is closed. */
    private void requireOpen(Connection connection) {
        if (closed.getAsBoolean()) {
            connection.setBroken();
            throw new IllegalStateException("JedisLockBackend is closed");
        }
    }
}
