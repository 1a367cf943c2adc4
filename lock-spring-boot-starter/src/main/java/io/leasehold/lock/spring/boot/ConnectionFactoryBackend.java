package io.leasehold.lock.spring.boot;

import io.leasehold.lock.spi.LockBackend;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The backend of the auto-configured lock client, made for the application's
 * {@link RedisConnectionFactory}, and what it opened for it: nothing on Lettuce (the backend shares the
 * factory's client), a Jedis client on Jedis (see {@link JedisBackends}). A bean, so that the context
 * closes it after the lock client, which depends on it, and before the connection factory, on which it
 * depends: the lock client's close releases every lease while Redis can still be reached.
 */
final class ConnectionFactoryBackend implements DisposableBean {

    private static final boolean LETTUCE = present("io.lettuce.core.RedisClient");
    private static final boolean JEDIS = present("redis.clients.jedis.UnifiedJedis");

    private final LockBackend backend;
    /** Whether the backend was made here (not the application's own), and so is closed here. */
    private final boolean made;

    private final @Nullable AutoCloseable opened;

    private ConnectionFactoryBackend(LockBackend backend, boolean made, @Nullable AutoCloseable opened) {
        this.backend = backend;
        this.made = made;
        this.opened = opened;
    }

    /**
     * The backend for {@code factory}.
     *
     * @throws IllegalStateException for a factory of another client than Lettuce or Jedis, naming it
     */
    static ConnectionFactoryBackend of(RedisConnectionFactory factory) {
        if (LETTUCE && factory instanceof LettuceConnectionFactory) {
            return new ConnectionFactoryBackend(LettuceBackends.create((LettuceConnectionFactory) factory), true, null);
        }
        if (JEDIS && factory instanceof JedisConnectionFactory) {
            JedisBackends.JedisClient client = JedisBackends.open((JedisConnectionFactory) factory);
            try {
                return new ConnectionFactoryBackend(JedisBackends.create(client), true, client);
            } catch (RuntimeException refused) {
                client.close();
                throw refused;
            }
        }
        throw new IllegalStateException("Leasehold runs on a LettuceConnectionFactory or a JedisConnectionFactory,"
                + " but the application's RedisConnectionFactory is a "
                + factory.getClass().getName()
                + ": define a LockBackend bean (e.g. LettuceLockBackend.create(redisClient)) to use another");
    }

    /** A user's own backend: nothing opened here. */
    static ConnectionFactoryBackend of(LockBackend backend) {
        return new ConnectionFactoryBackend(backend, false, null);
    }

    LockBackend backend() {
        return backend;
    }

    /**
     * Closes what was made here: the backend (already closed by the lock client, unless the client was
     * never made, as when a property was refused; closing twice is a no-op) and then what it ran on.
     */
    @Override
    public void destroy() throws Exception {
        if (made) {
            backend.close();
        }
        if (opened != null) {
            opened.close();
        }
    }

    private static boolean present(String className) {
        return ClassUtils.isPresent(className, ConnectionFactoryBackend.class.getClassLoader());
    }
}
