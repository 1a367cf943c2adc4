package io.leasehold.jpms.driveronly;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.Optional;

/** Compiles against the API and the Lettuce driver alone (the test does not run it: it needs no Redis to prove this). */
public final class Main {

    public static void main(String[] args) {
        RedisClient redis = RedisClient.create(args[0]);
        try (LockClient locks = LockClient.create(LettuceLockBackend.create(redis))) {
            Optional<Lease> lease = locks.lock("orders:42").tryAcquire(Duration.ofSeconds(1));
            lease.ifPresent(Lease::release);
        } finally {
            redis.shutdown();
        }
    }
}
