package io.leasehold.lock.internal;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A node that can, on request, interfere with the next handoff (handoff.lua) or the next plain
 * acquire (acquire.lua): hold its send (it reaches the store when the test says
 * so), hold its reply (it runs now, its reply waits), or fail it after it ran (a connection reset
 * that ate the reply). Records every script call as {@code "<script> <args>"}.
 */
final class HandoffGateBackend extends ForwardingLockBackend {

    /** What to do with the next call of a kind. */
    enum Gate {
        NONE,
        HOLD_SEND,
        HOLD_REPLY,
        FAIL_AFTER_RUN
    }

    final List<String> calls = new CopyOnWriteArrayList<>();
    final AtomicInteger handoffs = new AtomicInteger();
    final AtomicInteger plainAcquires = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();
    /** The last handoff's arguments (owner first, releasing owner fourth). */
    final AtomicReference<List<String>> lastHandoffArgs = new AtomicReference<>();
    /** Every handoff's reply (or failure) as it came from the store, with what {@link #atHandoffReply} said then. */
    final List<String> handoffReplies = new CopyOnWriteArrayList<>();

    volatile java.util.function.Supplier<String> atHandoffReply = () -> "";
    /** Completes once a held call has run in the store (HOLD_REPLY, FAIL_AFTER_RUN), or was held (HOLD_SEND). */
    volatile CompletableFuture<Object> gated = new CompletableFuture<>();

    private final AtomicReference<Gate> nextHandoff = new AtomicReference<>(Gate.NONE);
    private final AtomicReference<Gate> nextPlainAcquire = new AtomicReference<>(Gate.NONE);
    private final AtomicReference<Runnable> held = new AtomicReference<>();
    private volatile Throwable failure = new java.net.SocketException("Connection reset (after the script ran)");

    HandoffGateBackend(InMemoryLockBackend delegate) {
        super(delegate);
    }

    void gateNextHandoff(Gate gate) {
        gated = new CompletableFuture<>();
        nextHandoff.set(gate);
    }

    void gateNextPlainAcquire(Gate gate) {
        gated = new CompletableFuture<>();
        nextPlainAcquire.set(gate);
    }

    void failWith(Throwable failure) {
        this.failure = failure;
    }

    /** Sends the held call, or delivers the held reply. */
    void letGo() {
        Runnable go = held.getAndSet(null);
        if (go == null) {
            throw new AssertionError("nothing is held; calls: " + calls);
        }
        go.run();
    }

    boolean holding() {
        return held.get() != null;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        calls.add(script.name() + " " + args);
        Gate gate = Gate.NONE;
        if (script.name().equals(ScriptNames.HANDOFF)) {
            handoffs.incrementAndGet();
            lastHandoffArgs.set(List.copyOf(args));
            gate = nextHandoff.getAndSet(Gate.NONE);
            CompletableFuture<Object> recorded = evalGated(gate, script, keys, args);
            recorded.whenComplete((reply, error) -> handoffReplies.add(
                    (error == null ? String.valueOf(reply) : error.toString()) + " " + atHandoffReply.get()));
            return recorded;
        } else if (script.name().equals(ScriptNames.ACQUIRE)) {
            plainAcquires.incrementAndGet();
            gate = nextPlainAcquire.getAndSet(Gate.NONE);
        } else if (script.name().equals(ScriptNames.RELEASE)) {
            releases.incrementAndGet();
        }
        return evalGated(gate, script, keys, args);
    }

    private CompletableFuture<Object> evalGated(Gate gate, LuaScript script, List<String> keys, List<String> args) {
        CompletableFuture<Object> toEngine = new CompletableFuture<>();
        switch (gate) {
            case HOLD_SEND:
                held.set(() -> pipe(super.eval(script, keys, args), toEngine));
                gated.complete("held");
                return toEngine;
            case HOLD_REPLY: {
                CompletableFuture<Object> ran = super.eval(script, keys, args);
                ran.whenComplete((reply, error) -> {
                    held.set(() -> pipe(ran, toEngine));
                    gated.complete(error == null ? reply : error);
                });
                return toEngine;
            }
            case FAIL_AFTER_RUN: {
                CompletableFuture<Object> ran = super.eval(script, keys, args);
                ran.whenComplete((reply, error) -> {
                    gated.complete(error == null ? reply : error);
                    toEngine.completeExceptionally(failure);
                });
                return toEngine;
            }
            default:
                return super.eval(script, keys, args);
        }
    }

    private static void pipe(CompletableFuture<Object> from, CompletableFuture<Object> to) {
        from.whenComplete((reply, error) -> {
            if (error != null) {
                to.completeExceptionally(error);
            } else {
                to.complete(reply);
            }
        });
    }
}
