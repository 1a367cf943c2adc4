package io.leasehold.lock.jedis;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.net.Socket;
import java.util.Objects;
import java.util.function.Supplier;
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
 * <p>Every member is looked up once, when this class loads. On a Jedis without one of them,
 * {@link JedisLockBackend#create} fails with an {@link IllegalStateException} that names it, for a
 * client whose topology needs it (a standalone client does not need the Sentinel provider's pool).
 *
 * <p>This class is threadsafe (it has no mutable state).
 */
final class JedisInternals {

    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final Member<VarHandle> PROVIDER =
            Member.lookUp(() -> field(UnifiedJedis.class, "provider", ConnectionProvider.class));
    private static final Member<VarHandle> SENTINEL_POOL =
            Member.lookUp(() -> field(SentineledConnectionProvider.class, "pool", ConnectionPool.class));
    private static final Member<Disconnect> FORCE_DISCONNECT =
            Member.lookUp(JedisInternals::forceDisconnectOfThisJedis);
    // public from Jedis 8, package-private before
    private static final Member<MethodHandle> HOST_AND_PORT =
            Member.lookUp(() -> method(Connection.class, "getHostAndPort", MethodType.methodType(HostAndPort.class)));

    private JedisInternals() {}

    /**
     * Fails unless the members that every topology uses on its connections are there, and, for a
     * cluster, the one that tells a connection's node.
     */
    static void requireConnectionMembers(boolean cluster) {
        FORCE_DISCONNECT.get();
        if (cluster) {
            HOST_AND_PORT.get();
        }
    }

    /** The provider that holds {@code client}'s connections, or null when it has none (a client over one connection). */
    static @Nullable ConnectionProvider providerOf(UnifiedJedis client) {
        return (ConnectionProvider) PROVIDER.get().get(client);
    }

    /** The pool of the master that a Sentinel provider follows now (public only from Jedis 8). */
    static ConnectionPool currentMasterPool(SentineledConnectionProvider provider) {
        return (ConnectionPool) SENTINEL_POOL.get().getVolatile(provider);
    }

    /**
     * Marks {@code connection} broken and closes its socket at once, without flushing: a thread
     * blocked reading on it fails, and a stuck server cannot block this call. Jedis 7 and later have
     * {@code forceDisconnect()} for this; Jedis 6 only {@code disconnect()}, which flushes first and so
     * could block, so on Jedis 6 this does what {@code forceDisconnect()} does in 7.
     */
    static void forceDisconnect(Connection connection) throws IOException {
        FORCE_DISCONNECT.get().apply(connection);
    }

    /** The server {@code connection} is connected to. */
    static HostAndPort hostAndPort(Connection connection) {
        try {
            return (HostAndPort) HOST_AND_PORT.get().invokeExact(connection);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException(e);
        }
    }

    /** One member, looked up when this class loads, or why it could not be. */
    private static final class Member<T> {

        private final @Nullable T value;
        private final @Nullable IllegalStateException unsupported;

        private Member(@Nullable T value, @Nullable IllegalStateException unsupported) {
            this.value = value;
            this.unsupported = unsupported;
        }

        static <T> Member<T> lookUp(Supplier<T> lookup) {
            try {
                return new Member<>(lookup.get(), null);
            } catch (IllegalStateException e) {
                return new Member<>(null, e);
            }
        }

        T get() {
            if (value == null) {
                IllegalStateException cause = Objects.requireNonNull(unsupported);
                throw new IllegalStateException(cause.getMessage(), cause);
            }
            return value;
        }
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
