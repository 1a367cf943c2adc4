package io.leasehold.bench;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.ClientResources;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The floor: a one-key {@code SET NX PX} script and an owner-checked delete script, by
 * {@code EVALSHA} over one shared Lettuce connection, with nothing else (no fencing token, no
 * renewal, no waiting). It only tries, so it runs the uncontended scenarios only.
 */
final class RawScriptContender implements Contender {

    static final String ACQUIRE = "return redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) and 1 or 0";
    static final String RELEASE =
            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end";
    private static final String LEASE_MS = "30000";

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final String acquireSha;
    private final String releaseSha;
    private final String prefix = UUID.randomUUID() + ":";
    private final AtomicLong owners = new AtomicLong();

    RawScriptContender(String uri, ClientResources resources) {
        client = RedisClient.create(resources, uri);
        connection = client.connect();
        acquireSha = connection.sync().scriptLoad(ACQUIRE);
        releaseSha = connection.sync().scriptLoad(RELEASE);
    }

    @Override
    public String name() {
        return "raw script";
    }

    @Override
    public boolean waits() {
        return false;
    }

    @Override
    public Worker worker(int client) {
        RedisCommands<String, String> redis = connection.sync();
        return new Worker() {
            private String key;
            private String owner;

            @Override
            public void acquire(String key) {
                if (!tryAcquire(key)) {
                    throw new IllegalStateException("the raw baseline does not wait, but '" + key + "' was held");
                }
            }

            @Override
            public boolean tryAcquire(String key) {
                String candidate = prefix + owners.incrementAndGet();
                Long taken =
                        redis.evalsha(acquireSha, ScriptOutputType.INTEGER, new String[] {key}, candidate, LEASE_MS);
                if (taken == 1) {
                    this.key = key;
                    this.owner = candidate;
                    return true;
                }
                return false;
            }

            @Override
            public void release() {
                redis.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] {key}, owner);
            }
        };
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
