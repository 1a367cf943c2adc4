package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/** Holds back the reply of the next acquire (the command runs), and records every release sent. */
final class GatedRepliesBackend extends ForwardingLockBackend {

    final AtomicInteger acquiresSent = new AtomicInteger();
    final AtomicReference<String> firstAcquireOwner = new AtomicReference<>();
    /** For each release sent: its owner and what {@link #atRelease} said at that moment. */
    final List<String> releases = new CopyOnWriteArrayList<>();
    volatile Supplier<String> atRelease = () -> "";
    private final AtomicReference<CompletableFuture<Object>> heldAcquireReply = new AtomicReference<>();
    private volatile boolean holdAcquireReply;

    GatedRepliesBackend(InMemoryLockBackend delegate) {
        super(delegate);
    }

    void holdNextAcquireReply() {
        holdAcquireReply = true;
    }

    void completeHeldAcquireReply() {
        CompletableFuture<Object> reply = heldAcquireReply.getAndSet(null);
        if (reply == null) {
            throw new AssertionError("no acquire reply was held");
        }
        reply.complete(List.of(1L, 1L, -1L));
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        if (script.name().equals(ScriptNames.ACQUIRE)) {
            acquiresSent.incrementAndGet();
            firstAcquireOwner.compareAndSet(null, args.get(0));
            CompletableFuture<Object> reply = super.eval(script, keys, args);
            if (holdAcquireReply) {
                holdAcquireReply = false;
                CompletableFuture<Object> held = new CompletableFuture<>();
                heldAcquireReply.set(held);
                return held; // the command ran; only its reply waits
            }
            return reply;
        }
        if (script.name().equals(ScriptNames.RELEASE)) {
            releases.add(args.get(0) + " " + atRelease.get());
        }
        return super.eval(script, keys, args);
    }
}
