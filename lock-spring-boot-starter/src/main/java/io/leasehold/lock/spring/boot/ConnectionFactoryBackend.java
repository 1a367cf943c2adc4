package io.leasehold.lock.spring.boot;

import io.leasehold.lock.spi.LockBackend;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Makes the backends of the auto-configured lock client for the application's
 * {@link RedisConnectionFactory}, and owns what they run on: nothing on Lettuce (a backend shares the
 * factory's client), a Jedis client on Jedis (see {@link JedisBackends}). The lock client closes its
 * backend; a context that is stopped and started again (CRaC) needs a new one, which {@link #newBackend()}
 * makes: on Lettuce over the factory's new client. A bean, so that the context destroys it after the lock
 * client, which depends on it, and before the connection factory, on which it depends.
 *
 * <p>Threadsafe: {@link #newBackend()} and {@link #destroy()} are synchronized.
 */
final class ConnectionFactoryBackend implements DisposableBean {

    private static final boolean LETTUCE = present("io.lettuce.core.RedisClient");
    private static final boolean JEDIS = present("redis.clients.jedis.UnifiedJedis");

    private final Supplier<LockBackend> make;
    /** Whether the backends are made here (not the application's own), and so closed here. */
    private final boolean made;

    private final @Nullable AutoCloseable opened;
    /** The latest backend made, closed by {@link #destroy()} in case no lock client closed it. */
    private @Nullable LockBackend latest;
    /** The application's own backend, handed out once: once its lock client closed it, it is done. */
    private boolean ownHandedOut;

    private ConnectionFactoryBackend(Supplier<LockBackend> make, boolean made, @Nullable AutoCloseable opened) {
        this.make = make;
        this.made = made;
        this.opened = opened;
    }

    /**
     * The backends for {@code factory}.
     *
     * @throws IllegalStateException for a factory of another client than Lettuce or Jedis, naming it
     */
    static ConnectionFactoryBackend of(RedisConnectionFactory factory) {
        if (LETTUCE && factory instanceof LettuceConnectionFactory) {
            LettuceConnectionFactory lettuce = (LettuceConnectionFactory) factory;
            return new ConnectionFactoryBackend(() -> LettuceBackends.create(lettuce), true, null);
        }
        if (JEDIS && factory instanceof JedisConnectionFactory) {
            JedisBackends.JedisClient client = JedisBackends.open((JedisConnectionFactory) factory);
            return new ConnectionFactoryBackend(() -> JedisBackends.create(client), true, client);
        }
        throw new IllegalStateException("Leasehold runs on a LettuceConnectionFactory or a JedisConnectionFactory,"
                + " but the application's RedisConnectionFactory is a "
                + factory.getClass().getName()
                + ": define a LockBackend bean (e.g. LettuceLockBackend.create(redisClient)) to use another");
    }

    /** The application's own backend: nothing made or opened here. */
    static ConnectionFactoryBackend of(LockBackend backend) {
        return new ConnectionFactoryBackend(() -> backend, false, null);
    }

    /**
     * A backend for a new lock client.
     *
     * @throws IllegalStateException if the backend is the application's own and a lock client already had
     *     it (closing that client closed it)
     */
    synchronized LockBackend newBackend() {
        if (!made) {
            if (ownHandedOut) {
                throw new IllegalStateException("the lock client cannot start again on the application's own"
                        + " LockBackend bean: the client closed it when the context stopped");
            }
            ownHandedOut = true;
            return make.get();
        }
        latest = make.get();
        return latest;
    }

    /**
     * Closes what was made here: the latest backend (already closed by its lock client, unless the client
     * was never made, as when a property was refused; closing twice is a no-op), then what it ran on.
     */
    @Override
    public synchronized void destroy() throws Exception {
        if (latest != null) {
            latest.close();
        }
        closeOpened();
    }

    private void closeOpened() {
        if (opened != null) {
            try {
                opened.close();
            } catch (Exception e) {
                throw new IllegalStateException("could not close the Jedis client Leasehold opened", e);
            }
        }
    }

    private static boolean present(String className) {
        return ClassUtils.isPresent(className, ConnectionFactoryBackend.class.getClassLoader());
    }
}
