package io.leasehold.examples.boot;

import io.leasehold.lock.spring.Locked;
import io.leasehold.lock.spring.LockedLease;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * An item's stock in Redis, taken one at a time. Reading the count and writing it back is two calls:
 * without the lock, two orders could read the same count and sell the last item twice.
 */
@Service
public class Stock {

    private final StringRedisTemplate redis;
    private final List<Long> soldWithTokens = new CopyOnWriteArrayList<>();

    public Stock(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** Puts {@code count} of {@code item} on sale. */
    public void put(String item, int count) {
        redis.opsForValue().set(key(item), Integer.toString(count));
    }

    /** What is left of {@code item}. */
    public int left(String item) {
        String count = redis.opsForValue().get(key(item));
        return count == null ? 0 : Integer.parseInt(count);
    }

    /**
     * Takes one of {@code item}, or none when it is sold out: the order's fencing token when it took one.
     * The lock is the item's, {@code stock:<item>}; an order waits up to 10 s for it.
     */
    @Locked(name = "stock", key = "#item", waitTime = "10s")
    public Optional<Long> order(String item) {
        int left = left(item);
        if (left == 0) {
            return Optional.empty();
        }
        long token = LockedLease.current().fencingToken();
        redis.opsForValue().set(key(item), Integer.toString(left - 1));
        soldWithTokens.add(token);
        return Optional.of(token);
    }

    /** The fencing tokens of the orders sold, in the order they were sold. */
    public List<Long> soldWithTokens() {
        return List.copyOf(soldWithTokens);
    }

    private static String key(String item) {
        return "stock:" + item;
    }
}
