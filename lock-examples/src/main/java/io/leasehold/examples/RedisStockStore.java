package io.leasehold.examples;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The stock in Redis, under {@code leasehold-demo:{<product>}:stock}, over one node's own
 * connection. Reads and writes are plain {@code GET} and {@code SET}; the fenced write is a small
 * script that compares the token with the greatest one accepted so far, kept in
 * {@code leasehold-demo:{<product>}:fence}.
 *
 * <p>This class is threadsafe (Lettuce connections are).
 */
final class RedisStockStore implements StockStore {

    // Tokens are compared as decimal strings (length first), exactly, whatever their size: Lua
    // numbers are doubles.
    private static final String FENCED_SET = """
            local seen = redis.call('GET', KEYS[2]) or '0'
            local token = ARGV[2]
            if #token < #seen or (#token == #seen and token < seen) then
              return 0
            end
            redis.call('SET', KEYS[2], token)
            redis.call('SET', KEYS[1], ARGV[1])
            return 1
            """;

    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String stockKey;
    private final String fenceKey;

    RedisStockStore(RedisClient client, String product) {
        this.connection = client.connect();
        this.redis = connection.sync();
        this.stockKey = "leasehold-demo:{" + product + "}:stock";
        this.fenceKey = "leasehold-demo:{" + product + "}:fence";
    }

    @Override
    public void reset(long items) {
        redis.del(fenceKey);
        redis.set(stockKey, Long.toString(items));
    }

    @Override
    public long read() {
        String value = redis.get(stockKey);
        return value == null ? 0 : Long.parseLong(value);
    }

    @Override
    public void write(long items) {
        redis.set(stockKey, Long.toString(items));
    }

    @Override
    public boolean writeFenced(long items, long fencingToken) {
        Long accepted = redis.eval(FENCED_SET, ScriptOutputType.INTEGER, new String[] {stockKey, fenceKey},
                Long.toString(items), Long.toString(fencingToken));
        return accepted != null && accepted == 1L;
    }

    @Override
    public long highestTokenSeen() {
        String value = redis.get(fenceKey);
        return value == null ? 0 : Long.parseLong(value);
    }

    /** Removes the demo's keys (on a server the user owns, nothing else is touched). */
    void deleteKeys() {
        redis.del(stockKey, fenceKey);
    }

    @Override
    public void close() {
        connection.close();
    }
}
