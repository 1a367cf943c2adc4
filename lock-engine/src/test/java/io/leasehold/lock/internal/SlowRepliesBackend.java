package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * A slow link in one direction: the scripts it names run in the store at once, and their replies
 * (or failures) arrive {@code delay} later.
 */
final class SlowRepliesBackend extends ForwardingLockBackend {

    private final Executor late;
    private final Predicate<String> slowScripts;

    /** @param slowScripts which scripts (by name) answer late */
    SlowRepliesBackend(LockBackend delegate, Duration delay, Predicate<String> slowScripts) {
        super(delegate);
        this.late = CompletableFuture.delayedExecutor(delay.toNanos(), TimeUnit.NANOSECONDS);
        this.slowScripts = slowScripts;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        CompletableFuture<Object> reply = super.eval(script, keys, args);
        if (!slowScripts.test(script.name())) {
            return reply;
        }
        return reply.handleAsync((value, error) -> value, late).thenCompose(value -> reply);
    }
}
