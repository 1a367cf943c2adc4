package io.leasehold.lock.spi;

import java.util.concurrent.CompletableFuture;

/** An active channel subscription made by {@link LockBackend#subscribe}. */
public interface Subscription {

    String channel();

    /** Stops delivery to this subscription's listener. Idempotent. */
    CompletableFuture<Void> unsubscribe();
}
