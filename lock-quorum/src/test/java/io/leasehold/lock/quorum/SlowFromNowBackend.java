package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * A member that sends every script call {@code late} once {@link #slowFromNow()} was called (a loaded
 * server, from a moment the test chooses: after the warm-up that enlists every member at full speed).
 */
final class SlowFromNowBackend extends ForwardingLockBackend {
    private final Duration late;
    private volatile boolean slow;

    SlowFromNowBackend(LockBackend delegate, Duration late) {
        super(delegate);
        this.late = late;
    }

    void slowFromNow() {
        slow = true;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        if (!slow) {
            return delegate().eval(script, keys, args);
        }
        return CompletableFuture.supplyAsync(
                        () -> null, CompletableFuture.delayedExecutor(late.toMillis(), TimeUnit.MILLISECONDS))
                .thenCompose(ignored -> delegate().eval(script, keys, args));
    }
}
