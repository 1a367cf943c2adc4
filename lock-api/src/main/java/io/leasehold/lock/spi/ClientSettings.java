package io.leasehold.lock.spi;

import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.Ticker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * What {@link io.leasehold.lock.LockClient.Builder} collected, already validated, for
 * {@link LockEngine#newClient}. See the builder's methods for what each setting means.
 *
 * @param backend the Redis driver the client runs its scripts through
 * @param defaultOptions the options of a lock made without options of its own
 * @param keyPrefix the prefix of every key and channel
 * @param commandTimeout the bound on one Redis call as the engine sees it
 * @param closeTimeout the bound on the whole of {@link io.leasehold.lock.LockClient#close()}
 * @param listeners the event listeners, in the order they were added
 * @param callbackExecutor the user's executor for user-visible completions, or null for the client's own pool
 * @param ticker the engine's time source
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
