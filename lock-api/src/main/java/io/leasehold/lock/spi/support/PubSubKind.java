package io.leasehold.lock.spi.support;

import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Which kind of pub/sub a backend uses, decided once: sharded ({@code SSUBSCRIBE}/{@code SPUBLISH})
 * when the server has it, plain otherwise. Unknown until the driver first asked the server; fixed
 * from then on, so that what the engine publishes with and what the backend subscribes with always
 * agree (see {@link io.leasehold.lock.spi.LockBackend#shardedPubSub()}).
 *
 * <p>This class is threadsafe.
 */
public final class PubSubKind {

    private final AtomicReference<@Nullable Boolean> sharded = new AtomicReference<>();

    /** Decides from the server's {@code INFO server} text; a no-op once decided. */
    public void decideFromInfo(String info) {
        sharded.compareAndSet(null, ServerFeatures.supportsShardedPubSub(info));
    }

    /**
     * Decides plain pub/sub, which every server has, for a server that refuses {@code INFO} (some
     * managed services do); a no-op once decided.
     */
    public void decidePlain() {
        sharded.compareAndSet(null, false);
    }

    /** Whether the kind is decided yet. */
    public boolean isDecided() {
        return sharded.get() != null;
    }

    /** True when decided sharded; false when decided plain or not decided yet. */
    public boolean isSharded() {
        return Boolean.TRUE.equals(sharded.get());
    }
}
