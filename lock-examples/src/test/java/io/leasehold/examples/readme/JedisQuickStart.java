package io.leasehold.examples.readme;

// The README's Jedis quick start: everything between the markers is copied into README.md verbatim
// (ReadmeSnippetsTest checks it), and ReadmeJedisQuickStartTest runs it against a real redis-server.
// README:jedis-quick-start:begin
import io.leasehold.lock.LockClient;
import io.leasehold.lock.jedis.JedisLockBackend;
import java.time.Duration;
import redis.clients.jedis.RedisClient;

public class JedisQuickStart {

    public static void main(String[] args) {
        try (RedisClient redis = RedisClient.create(args.length > 0 ? args[0] : "redis://localhost:6379");
                LockClient locks = JedisLockBackend.lockClient(redis)) { // closed first; the client stays yours
            locks.lock("orders:42")
                    .runWithLease(Duration.ofSeconds(5), lease -> write("order 42", lease.fencingToken()));
        }
    }

    // Your code: the work the lock protects.
    static void write(String order, long fencingToken) {
        System.out.println("wrote " + order + " with fencing token " + fencingToken);
    }
}
// README:jedis-quick-start:end
