package io.leasehold.examples;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;
import java.util.OptionalLong;

/**
 * The stock in Redis, under {@code leasehold-demo:{<product>}:stock}, over one node's own
 * connection. Reads and writes are plain {@code GET} and {@code SET}; the fenced read and write are
 * small scripts that compare the token with the greatest one seen so far, kept in
 * {@code leasehold-demo:{<product>}:fence}, and record it.
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
    /** Returns the stock, or -1 when the token is older than one already seen. */
    private static final String FENCED_GET = """
            local seen = redis.call('GET', KEYS[2]) or '0'
            local token = ARGV[1]
            if #token < #seen or (#token == #seen and token < seen) then
              return -1
            end
            redis.call('SET', KEYS[2], token)
            return tonumber(redis.call('GET', KEYS[1]) or '0')
            """;

    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;
    private final String stockKey;
    private final String fenceKey;

    RedisStockStore(RedisClient client, String product) {
        this.connection = client.connect();
        this.redis = connection.sync();
        this.stockKey = keys(product).get(0);
        this.fenceKey = keys(product).get(1);
    }

    /** The keys of {@code product}'s stock: the stock and the highest token seen. */
    static List<String> keys(String product) {
        return List.of("leasehold-demo:{" + product + "}:stock", "leasehold-demo:{" + product + "}:fence");
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
    public OptionalLong readFenced(long fencingToken) {
        Long stock = redis.eval(
                FENCED_GET, ScriptOutputType.INTEGER, new String[] {stockKey, fenceKey}, Long.toString(fencingToken));
        return stock == null || stock < 0 ? OptionalLong.empty() : OptionalLong.of(stock);
    }

    @Override
    public boolean writeFenced(long items, long fencingToken) {
        Long accepted = redis.eval(
                FENCED_SET,
                ScriptOutputType.INTEGER,
                new String[] {stockKey, fenceKey},
                Long.toString(items),
                Long.toString(fencingToken));
        return accepted != null && accepted == 1L;
    }

    @Override
    public long highestTokenSeen() {
        String value = redis.get(fenceKey);
        return value == null ? 0 : Long.parseLong(value);
    }

    @Override
    public void close() {
        connection.close();
    }
}
