package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds acquire calls "on the wire" (while {@link #holdAcquires} is set) until {@link #land()}, which
 * runs them on a node of their own that stays open: Redis runs what was written whatever the client
 * does meanwhile, closing included. Counts the acquires and releases sent and the acquires landed.
 */
final class AcquiresOnTheWire extends ForwardingLockBackend {
    final List<Runnable> held = new CopyOnWriteArrayList<>();
    final AtomicInteger acquiresSent = new AtomicInteger();
    final AtomicInteger releasesSent = new AtomicInteger();
    final AtomicInteger landed = new AtomicInteger();
    volatile boolean holdAcquires;
    private final LockBackend wire;

    AcquiresOnTheWire(LockBackend delegate, LockBackend wire) {
        super(delegate);
        this.wire = wire;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        if (script.name().equals(ScriptNames.RELEASE)) {
            releasesSent.incrementAndGet();
        }
        if (!script.name().equals(ScriptNames.ACQUIRE)) {
            return super.eval(script, keys, args);
        }
        acquiresSent.incrementAndGet();
        if (!holdAcquires) {
            return super.eval(script, keys, args);
        }
        CompletableFuture<Object> reply = new CompletableFuture<>();
        held.add(() -> {
            landed.incrementAndGet();
            wire.eval(script, keys, args).whenComplete((value, error) -> {
                if (error == null) {
                    reply.complete(value);
                } else {
                    reply.completeExceptionally(error);
                }
            });
        });
        return reply;
    }

    /** Runs every held acquire on the wire; returns how many. */
    int land() {
        List<Runnable> now = new ArrayList<>(held);
        held.removeAll(now);
        now.forEach(Runnable::run);
        return now.size();
    }
}
