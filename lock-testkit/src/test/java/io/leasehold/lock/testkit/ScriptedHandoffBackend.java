package io.leasehold.lock.testkit;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A node whose handoffs (acquire.lua with a releasing owner, ARGV[4]) follow a script of outcomes,
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
        NEVER_ARRIVES
    }

    final List<String> calls = new CopyOnWriteArrayList<>();
    final AtomicInteger handoffs = new AtomicInteger();
    final AtomicInteger plainAcquires = new AtomicInteger();
    /** Every handoff's reply from the store, or what became of the send. */
    final List<String> handoffOutcomes = new CopyOnWriteArrayList<>();
    private final Queue<Send> script = new ConcurrentLinkedQueue<>();

    ScriptedHandoffBackend(InMemoryLockBackend delegate) {
        super(delegate);
    }

    /** Appends outcomes for the next handoff sends; sends beyond the script pass. */
    void nextHandoffs(Send... sends) {
        script.addAll(List.of(sends));
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        calls.add(script.name() + " " + args);
        if (!script.name().equals(ScriptNames.ACQUIRE)) {
            return super.eval(script, keys, args);
        }
        if (args.size() <= 3) {
            plainAcquires.incrementAndGet();
            return super.eval(script, keys, args);
        }
        handoffs.incrementAndGet();
        Send send = this.script.poll();
        switch (send == null ? Send.PASS : send) {
            case FAIL_BEFORE_RUN:
                handoffOutcomes.add("failed before it ran");
                return CompletableFuture.failedFuture(new java.net.ConnectException("Connection refused (the handoff never ran)"));
            case NEVER_ARRIVES:
                handoffOutcomes.add("never arrives");
                return new CompletableFuture<>();
            case FAIL_AFTER_RUN: {
                CompletableFuture<Object> lost = new CompletableFuture<>();
                super.eval(script, keys, args).whenComplete((reply, error) -> {
                    handoffOutcomes.add("ran: " + (error == null ? reply : error) + ", reply lost");
                    lost.completeExceptionally(new java.net.SocketException("Connection reset (after the handoff ran)"));
                });
                return lost;
            }
            default:
                return super.eval(script, keys, args).whenComplete((reply, error) ->
                        handoffOutcomes.add("ran: " + (error == null ? reply : error)));
        }
    }
}
