package io.leasehold.lock.spring.boot.shop;

import io.leasehold.lock.spring.Locked;
import io.leasehold.lock.spring.LockedLease;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.stereotype.Service;

/**
 * The application's service: taking an item from stock runs under the lock {@code stock:<item>}, and counts
 * the calls inside at once (a lock that let a second call in would show 2).
 */
@Service
public class Stock {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger mostInside = new AtomicInteger();

    /** One call of {@link #take}: when it came in, with which fencing token, and the latch that lets it out. */
    public static final class Visit {
        private final CompletableFuture<Long> entered = new CompletableFuture<>();
        private final CountDownLatch leave = new CountDownLatch(1);

        /** The fencing token of the lease the call runs under, once it came in. */
        public CompletableFuture<Long> entered() {
            return entered;
        }

        /** Lets the call return. */
        public void leave() {
            leave.countDown();
        }
    }

    /**
     * Takes {@code item} under its lock: comes in, then stays until {@code visit} is let out (at most 10 s).
     *
     * @return the fencing token of the lease it ran under
     */
    @Locked(name = "stock", key = "#item", waitTime = "10s")
    public long take(String item, Visit visit) throws InterruptedException {
        mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
        try {
            long token = LockedLease.current().fencingToken();
            visit.entered.complete(token);
            if (!visit.leave.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test did not let the call out within 10 s");
            }
            return token;
        } finally {
            inside.decrementAndGet();
        }
    }

    /** The most calls of {@link #take} that were inside at once (a method: the bean is called through its proxy). */
    public int mostInside() {
        return mostInside.get();
    }
}
