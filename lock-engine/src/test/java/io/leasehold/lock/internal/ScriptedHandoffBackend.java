package io.leasehold.lock.internal;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node whose handoffs (handoff.lua) follow a script of outcomes,
 * one per send, in order: a handoff resent after a failure meets the next entry. Unlike
 * {@link HandoffGateBackend} it can fail a send before it reaches the store (a refused or reset
 * connection that never wrote the command) and keep a send from ever arriving (it then times out).
 * Records every script call as {@code "<script> <args>"}.
 */
final class ScriptedHandoffBackend extends ForwardingLockBackend {

    /** What becomes of one handoff send. */
    enum Send {
        /** Runs and replies normally. */
        PASS,
        /** Never reaches the store; fails at once (the outcome is unknown to the engine). */
        FAIL_BEFORE_RUN,
        /** Runs in the store; its reply is lost to a connection reset. */
        FAIL_AFTER_RUN,
        /** Never reaches the store and never answers (the command timeout ends it). */
        NEVER_ARRIVES,
        /** Held on its way (a slow network) until {@link #letGo()} sends it on; its reply then comes normally. */
        HOLD
    }

    final List<String> calls = new CopyOnWriteArrayList<>();
    final AtomicInteger handoffs = new AtomicInteger();
    final AtomicInteger plainAcquires = new AtomicInteger();
    /** Every handoff's reply from the store, or what became of the send. */
    final List<String> handoffOutcomes = new CopyOnWriteArrayList<>();

    private final Queue<Send> script = new ConcurrentLinkedQueue<>();
    private final java.util.concurrent.atomic.AtomicReference<Runnable> held =
            new java.util.concurrent.atomic.AtomicReference<>();

    ScriptedHandoffBackend(InMemoryLockBackend delegate) {
        super(delegate);
    }

    /** Appends outcomes for the next handoff sends; sends beyond the script pass. */
    void nextHandoffs(Send... sends) {
        script.addAll(List.of(sends));
    }

    /** Whether a {@link Send#HOLD} send is being held. */
    boolean holding() {
        return held.get() != null;
    }

    /** Sends the held handoff on to the store. */
    void letGo() {
        Runnable go = held.getAndSet(null);
        if (go == null) {
            throw new AssertionError("no handoff is held; calls " + calls);
        }
        go.run();
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        calls.add(script.name() + " " + args);
        if (script.name().equals(ScriptNames.ACQUIRE)) {
            plainAcquires.incrementAndGet();
            return super.eval(script, keys, args);
        }
        if (!script.name().equals(ScriptNames.HANDOFF)) {
            return super.eval(script, keys, args);
        }
        handoffs.incrementAndGet();
        Send send = this.script.poll();
        switch (send == null ? Send.PASS : send) {
            case FAIL_BEFORE_RUN:
                handoffOutcomes.add("failed before it ran");
                return CompletableFuture.failedFuture(
                        new java.net.ConnectException("Connection refused (the handoff never ran)"));
            case NEVER_ARRIVES:
                handoffOutcomes.add("never arrives");
                return new CompletableFuture<>();
            case FAIL_AFTER_RUN: {
                CompletableFuture<Object> lost = new CompletableFuture<>();
                super.eval(script, keys, args).whenComplete((reply, error) -> {
                    handoffOutcomes.add("ran: " + (error == null ? reply : error) + ", reply lost");
                    lost.completeExceptionally(
                            new java.net.SocketException("Connection reset (after the handoff ran)"));
                });
                return lost;
            }
            case HOLD: {
                CompletableFuture<Object> toEngine = new CompletableFuture<>();
                held.set(() -> super.eval(script, keys, args).whenComplete((reply, error) -> {
                    handoffOutcomes.add("ran after being held: " + (error == null ? reply : error));
                    if (error != null) {
                        toEngine.completeExceptionally(error);
                    } else {
                        toEngine.complete(reply);
                    }
                }));
                return toEngine;
            }
            default:
                return super.eval(script, keys, args)
                        .whenComplete((reply, error) -> handoffOutcomes.add("ran: " + (error == null ? reply : error)));
        }
    }
}
