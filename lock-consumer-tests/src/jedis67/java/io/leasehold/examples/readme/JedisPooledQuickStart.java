package io.leasehold.examples.readme;

// The README's Jedis quick start for Jedis 6 and 7 (Spring Boot 3.5 and 4.0 manage those), which have
// JedisPooled where Jedis 8 has RedisClient: everything between the markers is copied into README.md
// verbatim (lock-examples' ReadmeSnippetsTest checks it), and the consumer modules compile it with
// their Jedis and run it (ReadmeJedisPooledQuickStartTest) against a real redis-server.
// README:jedis-pooled-quick-start:begin
import io.leasehold.lock.LockClient;
import io.leasehold.lock.jedis.JedisLockBackend;
import java.time.Duration;
import redis.clients.jedis.JedisPooled;

public class JedisPooledQuickStart {

    public static void main(String[] args) {
        try (JedisPooled redis = new JedisPooled(args.length > 0 ? args[0] : "redis://localhost:6379");
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
// README:jedis-pooled-quick-start:end
