package io.leasehold.lock.internal;

import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.Ticker;
import io.leasehold.lock.spi.LockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * What {@link io.leasehold.lock.LockClient.Builder} collected, already validated.
 *
 * @param callbackExecutor the user's executor for user-visible completions, or null for the client's own pool
 */
public record ClientSettings(
        LockBackend backend,
        LockOptions defaultOptions,
        String keyPrefix,
        Duration commandTimeout,
        Duration closeTimeout,
        List<LockEventListener> listeners,
        @Nullable Executor callbackExecutor,
        Ticker ticker) {}
