package io.leasehold.lock.jedis;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.net.Socket;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import redis.clients.jedis.Connection;
import redis.clients.jedis.ConnectionPool;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.providers.ConnectionProvider;
import redis.clients.jedis.providers.SentineledConnectionProvider;

/**
 * What the backend needs from Jedis that Jedis 6, 7 and 8 do not all offer as public API. The client
 * classes differ from version to version ({@code JedisPooled} and {@code JedisSentineled} in 6 and 7,
 * {@code RedisClient} and {@code RedisSentinelClient} in 8), but all extend {@link UnifiedJedis} and
 * keep their connections in a {@link ConnectionProvider}, which {@code UnifiedJedis} holds in a
 * protected field without a getter in any of them. Jedis is an automatic module (no descriptor, so
 * every package is open), which lets this class read that field and the few other members below.
 *
 * <p>Every member is looked up once, when this class loads; on a Jedis without one of them,
 * {@link JedisLockBackend#create} fails with an {@link IllegalStateException} that names it.
 *
 * <p>This class is threadsafe (it has no mutable state).
 */
final class JedisInternals {

    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final @Nullable Members MEMBERS;
    private static final @Nullable IllegalStateException UNSUPPORTED;

    static {
        Members members = null;
        IllegalStateException unsupported = null;
        try {
            members = new Members(
                    field(UnifiedJedis.class, "provider", ConnectionProvider.class),
                    field(SentineledConnectionProvider.class, "pool", ConnectionPool.class),
                    forceDisconnectOfThisJedis(),
                    // public from Jedis 8, package-private before
                    method(Connection.class, "getHostAndPort", MethodType.methodType(HostAndPort.class)));
        } catch (IllegalStateException e) {
            unsupported = e;
        }
        MEMBERS = members;
        UNSUPPORTED = unsupported;
    }

    /** The members this class reaches, looked up once. */
    private record Members(
            VarHandle provider, VarHandle sentinelPool, Disconnect forceDisconnect, MethodHandle hostAndPort) {}

    private JedisInternals() {}

    /** The provider that holds {@code client}'s connections, or null when it has none (a client over one connection). */
    static @Nullable ConnectionProvider providerOf(UnifiedJedis client) {
        return (ConnectionProvider) members().provider().get(client);
    }

    /** The pool of the master that a Sentinel provider follows now (public only from Jedis 8). */
    static ConnectionPool currentMasterPool(SentineledConnectionProvider provider) {
        return (ConnectionPool) members().sentinelPool().getVolatile(provider);
    }

    /**
     * Marks {@code connection} broken and closes its socket at once, without flushing: a thread
     * blocked reading on it fails, and a stuck server cannot block this call. Jedis 7 and later have
     * {@code forceDisconnect()} for this; Jedis 6 only {@code disconnect()}, which flushes first and so
     * could block, so on Jedis 6 this does what {@code forceDisconnect()} does in 7.
     */
    static void forceDisconnect(Connection connection) throws IOException {
        members().forceDisconnect().apply(connection);
    }

    /** The server {@code connection} is connected to. */
    static HostAndPort hostAndPort(Connection connection) {
        try {
            return (HostAndPort) members().hostAndPort().invokeExact(connection);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    private static Members members() {
        if (MEMBERS == null) {
            throw new IllegalStateException(Objects.requireNonNull(UNSUPPORTED).getMessage(), UNSUPPORTED);
        }
        return MEMBERS;
    }

    private static Disconnect forceDisconnectOfThisJedis() {
        MethodHandle forceDisconnect;
        try {
            forceDisconnect =
                    LOOKUP.findVirtual(Connection.class, "forceDisconnect", MethodType.methodType(void.class));
        } catch (NoSuchMethodException | IllegalAccessException jedis6) {
            VarHandle socketField = field(Connection.class, "socket", Socket.class);
            return connection -> {
                connection.setBroken();
                Socket socket = (Socket) socketField.getVolatile(connection);
                if (socket != null) {
                    socket.close();
                }
            };
        }
        return connection -> {
            try {
                forceDisconnect.invokeExact(connection);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        };
    }

    private interface Disconnect {
        void apply(Connection connection) throws IOException;
    }

    private static VarHandle field(Class<?> owner, String name, Class<?> type) {
        try {
            return MethodHandles.privateLookupIn(owner, LOOKUP).findVarHandle(owner, name, type);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw unsupported(owner.getName() + "." + name, e);
        }
    }

    private static MethodHandle method(Class<?> owner, String name, MethodType type) {
        try {
            return MethodHandles.privateLookupIn(owner, LOOKUP).findVirtual(owner, name, type);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw unsupported(owner.getName() + "." + name + type, e);
        }
    }

    private static IllegalStateException unsupported(String member, Exception cause) {
        return new IllegalStateException(
                "lock-jedis supports Jedis 6.0 to 8.x, but cannot reach " + member + " in the Jedis on the class path"
                        + " (is it another version, or a named module that does not open it?)",
                cause);
    }
}
