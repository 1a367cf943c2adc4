package io.leasehold.lock.spring.boot;

import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.spi.LockBackend;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.JedisSentineled;
import redis.clients.jedis.UnifiedJedis;

/**
 * A backend for an application on Jedis. Spring Data Redis's {@link JedisConnectionFactory} keeps a pool
 * of plain {@code Jedis} connections, which the backend cannot use (it runs on a {@link UnifiedJedis}
 * that owns its pool), so this makes a {@code UnifiedJedis} of the kind the factory is configured for,
 * with the factory's settings: standalone ({@link JedisPooled}: host, port, database, credentials, client
 * name, timeouts, TLS), Sentinel ({@link JedisSentineled}, with the Sentinels' own credentials) or
 * Cluster ({@link JedisCluster}), and the factory's pool settings (at least 2 connections: one stays for
 * the backend's subscriber). The client is the backend's; {@link JedisClient#close()} closes it after
 * the lock client. Only loaded when Jedis is on the class path.
 */
final class JedisBackends {

    private JedisBackends() {}

    /** The Jedis client that the auto-configuration opened for Leasehold, closed with the context. */
    static final class JedisClient implements AutoCloseable {

        final UnifiedJedis client;

        JedisClient(UnifiedJedis client) {
            this.client = client;
        }

        @Override
        public void close() {
            client.close();
        }
    }

    /** A new client for Leasehold, configured as {@code factory} is. */
    static JedisClient open(JedisConnectionFactory factory) {
        GenericObjectPoolConfig<Connection> pool = poolOf(factory);
        if (factory.isRedisClusterAware()) {
            RedisClusterConfiguration cluster = factory.getClusterConfiguration();
            JedisClientConfig config = clientConfig(factory, 0, cluster.getUsername(), cluster.getPassword());
            Integer redirects = cluster.getMaxRedirects();
            return new JedisClient(new JedisCluster(
                    hosts(cluster.getClusterNodes()),
                    config,
                    redirects == null ? JedisCluster.DEFAULT_MAX_ATTEMPTS : redirects,
                    pool));
        }
        if (factory.isRedisSentinelAware()) {
            RedisSentinelConfiguration sentinel = factory.getSentinelConfiguration();
            return new JedisClient(new JedisSentineled(
                    sentinel.getMaster().getName(),
                    clientConfig(factory, sentinel.getDatabase(), sentinel.getUsername(), sentinel.getPassword()),
                    pool,
                    hosts(sentinel.getSentinels()),
                    clientConfig(factory, 0, sentinel.getSentinelUsername(), sentinel.getSentinelPassword())));
        }
        RedisStandaloneConfiguration standalone = factory.getStandaloneConfiguration();
        return new JedisClient(new JedisPooled(
                new HostAndPort(standalone.getHostName(), standalone.getPort()),
                clientConfig(factory, standalone.getDatabase(), standalone.getUsername(), standalone.getPassword()),
                pool));
    }

    static LockBackend create(JedisClient client) {
        return JedisLockBackend.create(client.client);
    }

    /** The factory's pool settings, or Jedis's defaults (8 connections) when it has none. */
    @SuppressWarnings("unchecked")
    private static GenericObjectPoolConfig<Connection> poolOf(JedisConnectionFactory factory) {
        GenericObjectPoolConfig<?> configured =
                factory.getClientConfiguration().getPoolConfig().orElse(null);
        GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
        if (configured != null) {
            // The pool is Leasehold's own, not the factory's: it needs 2 connections whatever the
            // application's pool allows (one stays for the subscriber)
            int maxTotal = configured.getMaxTotal();
            pool.setMaxTotal(maxTotal < 0 ? maxTotal : Math.max(2, maxTotal));
            pool.setMaxIdle(configured.getMaxIdle());
            pool.setMinIdle(configured.getMinIdle());
            pool.setMaxWait(configured.getMaxWaitDuration());
        }
        return pool;
    }

    /** Settings as the factory gives its own connections (see JedisConnectionFactory#createClientConfig). */
    private static JedisClientConfig clientConfig(
            JedisConnectionFactory factory, int database, @Nullable String username, RedisPassword password) {
        JedisClientConfiguration settings = factory.getClientConfiguration();
        DefaultJedisClientConfig.Builder builder = DefaultJedisClientConfig.builder()
                .connectionTimeoutMillis(
                        Math.toIntExact(settings.getConnectTimeout().toMillis()))
                .socketTimeoutMillis(Math.toIntExact(settings.getReadTimeout().toMillis()))
                .database(database);
        settings.getClientName().ifPresent(builder::clientName);
        if (username != null && !username.isEmpty()) {
            builder.user(username);
        }
        password.toOptional().map(String::new).ifPresent(builder::password);
        if (settings.isUseSsl()) {
            builder.ssl(true);
            settings.getSslSocketFactory().ifPresent(builder::sslSocketFactory);
            settings.getHostnameVerifier().ifPresent(builder::hostnameVerifier);
            settings.getSslParameters().ifPresent(builder::sslParameters);
        }
        settings.getCustomizer().ifPresent(customizer -> customizer.customize(builder));
        return builder.build();
    }

    private static Set<HostAndPort> hosts(java.util.Collection<RedisNode> nodes) {
        return nodes.stream()
                .map(node -> new HostAndPort(node.getRequiredHost(), node.getRequiredPort()))
                .collect(Collectors.toSet());
    }
}
