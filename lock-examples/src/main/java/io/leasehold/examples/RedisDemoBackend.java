package io.leasehold.examples;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.testkit.redis.RedisServerBinary;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Locks and stock in a real Redis: one this demo started from the local {@code redis-server}, or
 * one the user named with {@code --redis}. Each node has its own Lettuce {@link RedisClient} and so
 * its own connections (they share Netty's threads, as nodes on one host would share cores), which
 * keep the stock; a node locks over that client, or with {@code --driver jedis} over a Jedis client
 * of its own.
 */
final class RedisDemoBackend implements DemoBackend {

    private final RedisURI uri;
    private final String origin;
    private final StandaloneRedis startedServer; // null when the user runs the server
    private final ClientResources resources = DefaultClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(2)
            .build();
    private final String uriText;
    private final DemoOptions.Driver driver;
    private final List<RedisClient> clients = new ArrayList<>();
    private final List<redis.clients.jedis.RedisClient> jedisClients = new ArrayList<>();
    private final List<Node> nodes = new ArrayList<>();

    private RedisDemoBackend(String uri, String origin, StandaloneRedis startedServer, DemoOptions.Driver driver) {
        this.uri = RedisURI.create(uri);
        this.uriText = uri;
        this.driver = driver;
        this.uri.setTimeout(Duration.ofSeconds(5));
        this.origin = origin;
        this.startedServer = startedServer;
    }

    /** Starts {@code redis-server} from {@code binary} on a free port (never 6379). */
    static RedisDemoBackend startLocal(RedisServerBinary binary, DemoOptions.Driver driver) {
        StandaloneRedis server = StandaloneRedis.start(binary);
        return new RedisDemoBackend(
                server.uri(), "started " + binary.path() + " on " + server.endpoint(), server, driver);
    }

    /** Uses the server at {@code uri}; only the demo's own keys are written and deleted. */
    static RedisDemoBackend existing(String uri, DemoOptions.Driver driver) {
        return new RedisDemoBackend(uri, "using the Redis at " + uri + " (--redis)", null, driver);
    }

    @Override
    public String description() {
        String backend = driver == DemoOptions.Driver.JEDIS ? "JedisLockBackend" : "LettuceLockBackend";
        return "redis-server " + serverVersion() + ", " + origin + "; driver: " + backend;
    }

    private String serverVersion() {
        RedisClient client = newClient();
        try (StatefulRedisConnection<String, String> connection = client.connect()) {
            return connection
                    .sync()
                    .info("server")
                    .lines()
                    .filter(line -> line.startsWith("redis_version:"))
                    .map(line -> line.substring("redis_version:".length()).trim())
                    .findFirst()
                    .orElse("(unknown version)");
        }
    }

    @Override
    public synchronized Node newNode(String name, LockEventListener listener) {
        RedisClient client = newClient();
        LockBackend backend = driver == DemoOptions.Driver.JEDIS
                ? JedisLockBackend.create(newJedisClient())
                : LettuceLockBackend.create(client);
        LockClient locks = LockClient.builder(backend).listener(listener).build();
        Node node = new Node(name, locks, new RedisStockStore(client, FlashSale.PRODUCT));
        nodes.add(node);
        return node;
    }

    /**
     * Deletes every key the demo wrote, so that a Redis named with {@code --redis} is left as it was:
     * the stock and its fence, and the lock's own keys (the fencing counter outlives a release by a day; the yield marker, if a
     * release yielded, by a lease time).
     */
    private void deleteDemoKeys() {
        List<String> keys = new ArrayList<>(RedisStockStore.keys(FlashSale.PRODUCT));
        keys.add(LockKeys.lockKey(LockClient.Builder.DEFAULT_KEY_PREFIX, FlashSale.LOCK_NAME));
        keys.add(LockKeys.fenceKey(LockClient.Builder.DEFAULT_KEY_PREFIX, FlashSale.LOCK_NAME));
        keys.add(LockKeys.yieldMarkerKey(LockClient.Builder.DEFAULT_KEY_PREFIX, FlashSale.LOCK_NAME));
        try (StatefulRedisConnection<String, String> connection = newClient().connect()) {
            connection.sync().del(keys.toArray(String[]::new));
        }
    }

    private synchronized RedisClient newClient() {
        RedisClient client = RedisClient.create(resources, uri);
        clients.add(client);
        return client;
    }

    private synchronized redis.clients.jedis.RedisClient newJedisClient() {
        // The same redis:// URI (host, port, credentials, database), read by Jedis itself.
        redis.clients.jedis.RedisClient client =
                redis.clients.jedis.RedisClient.builder().fromURI(uriText).build();
        jedisClients.add(client);
        return client;
    }

    @Override
    public synchronized void close() {
        // Locks first, so that nothing holds or renews the lock while its keys go.
        nodes.forEach(node -> node.locks().close());
        deleteDemoKeys();
        nodes.forEach(node -> node.stock().close());
        for (RedisClient client : clients) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
        jedisClients.forEach(redis.clients.jedis.RedisClient::close);
        resources.shutdown(0, 2, TimeUnit.SECONDS);
        if (startedServer != null) {
            startedServer.close();
        }
    }
}
