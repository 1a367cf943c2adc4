package io.leasehold.examples.readme;

// The README's Java quick start: everything between the markers is copied into README.md verbatim
// (ReadmeSnippetsTest checks it), and ReadmeQuickStartsTest runs it against a real redis-server.
// README:java-quick-start:begin
import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.lettuce.core.RedisClient;
import java.time.Duration;

public class JavaQuickStart {

    public static void main(String[] args) {
        RedisClient redis = RedisClient.create(args.length > 0 ? args[0] : "redis://localhost:6379");
        try (LockClient locks = LettuceLockBackend.lockClient(redis)) { // one per application
            DistributedLock lock = locks.lock("orders:42");

            // Preferred: releases on every path, interrupts the body if the lease is lost.
            lock.runLocked(Duration.ofSeconds(5), () -> ship("order 42"));

            // The body gets the lease: pass its fencing token to the resource you protect.
            lock.runWithLease(Duration.ofSeconds(5), lease -> write("order 42", lease.fencingToken()));

            // Explicit lease: release it yourself (try-with-resources).
            try (Lease lease = lock.acquire(Duration.ofSeconds(5))) {
                lease.lost().thenAccept(loss -> System.err.println("lost " + loss)); // on the callback executor
                if (lease.isValid()) { // decide from the state, at once
                    write("order 42", lease.fencingToken()); // storage rejects smaller tokens
                }
            }

            // One attempt, no waiting: a lease only if the lock is free; release it as well.
            lock.tryAcquire().ifPresent(lease -> {
                try (lease) {
                    ship("order 42");
                }
            });
        } finally {
            redis.shutdown(); // the Redis client stays yours: the lock client closes only its own connections
        }
    }

    // Your code: the work the lock protects.
    static void ship(String order) {
        System.out.println("shipped " + order);
    }

    static void write(String order, long fencingToken) {
        System.out.println("wrote " + order + " with fencing token " + fencingToken);
    }
}
// README:java-quick-start:end
