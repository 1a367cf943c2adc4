package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/** Calls the bundled scripts on a backend with the engine's key layout, and waits for replies. */
final class ScriptCaller {

    static final String PREFIX = "test:";
    static final long COUNTER_TTL_MS = 3_600_000;
    static final long TIMEOUT_SECONDS = 10;

    static final LuaScript ACQUIRE = LuaScript.bundled(ScriptNames.ACQUIRE);
    static final LuaScript HANDOFF = LuaScript.bundled(ScriptNames.HANDOFF);
    static final LuaScript RELEASE = LuaScript.bundled(ScriptNames.RELEASE);
    static final LuaScript RENEW = LuaScript.bundled(ScriptNames.RENEW);
    static final LuaScript EXTEND = LuaScript.bundled(ScriptNames.EXTEND);
    static final LuaScript INSPECT = LuaScript.bundled(ScriptNames.INSPECT);
    static final LuaScript FORCE_RELEASE = LuaScript.bundled(ScriptNames.FORCE_RELEASE);

    private final LockBackend backend;
    private final AtomicLong sequence = new AtomicLong();

    ScriptCaller(LockBackend backend) {
        this.backend = backend;
    }

    static String lockKey(String name) {
        return LockKeys.lockKey(PREFIX, name);
    }

    static String fenceKey(String name) {
        return LockKeys.fenceKey(PREFIX, name);
    }

    static String channel(String name) {
        return LockKeys.releaseChannel(PREFIX, name);
    }

    /** The wait queue's keys and the release marker of {@code name}, as the engine sends them (see acquire.lua, release.lua). */
    static List<String> queueKeys(String name, boolean withMarker) {
        List<String> keys = new ArrayList<>(List.of(
                lockKey(name),
                fenceKey(name),
                LockKeys.queueKey(PREFIX, name),
                LockKeys.waitersKey(PREFIX, name),
                channel(name)));
        if (withMarker) {
            keys.add(yieldMarkerKey(name));
        }
        return keys;
    }

    /** acquire.lua as a plain lock sends it: no place in the wait queue. */
    CompletableFuture<Object> acquireAsync(String name, String owner, long leaseMs) {
        return backend.eval(
                ACQUIRE,
                queueKeys(name, false),
                List.of(owner, Long.toString(leaseMs), Long.toString(COUNTER_TTL_MS), "1500", "SPUBLISH", "1"));
    }

    /** handoff.lua from {@code releasingOwner} to {@code owner}, with the yield flag, as the engine sends it. */
    List<?> handoff(String name, String owner, String releasingOwner, boolean mayYield) {
        return (List<?>) await(handoffAsync(name, owner, releasingOwner, mayYield ? "1" : "0", "SPUBLISH"));
    }

    /** handoff.lua from {@code releasingOwner} to {@code owner}, with the yield flag and publish command as given. */
    CompletableFuture<Object> handoffAsync(
            String name, String owner, String releasingOwner, String yieldFlag, String publishCommand) {
        return backend.eval(
                HANDOFF,
                queueKeys(name, true),
                List.of(owner, "30000", Long.toString(COUNTER_TTL_MS), releasingOwner, publishCommand, yieldFlag));
    }

    /** Any script with the given KEYS and ARGV, as they are. */
    CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
        return backend.eval(script, keys, args);
    }

    static String yieldMarkerKey(String name) {
        return LockKeys.yieldMarkerKey(PREFIX, name);
    }

    List<?> acquire(String name, String owner, long leaseMs) {
        return (List<?>) await(acquireAsync(name, owner, leaseMs));
    }

    /** The token of a successful acquisition, as a number. */
    long acquireToken(String name, String owner, long leaseMs) {
        List<?> reply = acquire(name, owner, leaseMs);
        assertTrue(reply.get(0).equals(1L), () -> "expected to acquire " + name + " but got " + reply);
        return Long.parseLong((String) reply.get(1));
    }

    Object release(String name, String owner) {
        return release(name, owner, "SPUBLISH");
    }

    Object release(String name, String owner, String publishCommand) {
        return await(backend.eval(
                RELEASE,
                queueKeys(name, true),
                List.of(owner, Long.toString(COUNTER_TTL_MS), "1500", publishCommand, "30000")));
    }

    /**
     * Renews with (owner, lease) pairs; each lease gets the next of this caller's sequence numbers,
     * as the engine numbers every TTL command of a lease (see renew.lua). Returns the codes.
     */
    Object renew(List<String> names, List<String> ownersAndLeases) {
        List<String> args = new ArrayList<>();
        for (int i = 0; i + 1 < ownersAndLeases.size(); i += 2) {
            args.add(ownersAndLeases.get(i));
            args.add(ownersAndLeases.get(i + 1));
            args.add(Long.toString(sequence.incrementAndGet()));
        }
        return renewWithSequences(names, args);
    }

    /**
     * Renews with explicit (owner, lease, sequence) triples, as a caller that knows neither the value
     * Redis holds nor the token: every lease takes renew.lua's full check, which reads the owner and
     * the number from {@code value} and keeps the token it finds ({@value #UNKNOWN_TOKEN} here).
     * Returns the codes.
     */
    Object renewWithSequences(List<String> names, List<String> ownersLeasesAndSequences) {
        List<String> args = new ArrayList<>();
        args.add(""); // each lease its own lease time
        for (int i = 0; i + 2 < ownersLeasesAndSequences.size(); i += 3) {
            args.add(""); // expected: nothing known
            args.add(ownersLeasesAndSequences.get(i) + ":" + UNKNOWN_TOKEN + ":" + ownersLeasesAndSequences.get(i + 2));
            args.add(ownersLeasesAndSequences.get(i + 1));
        }
        return codes(renewReply(names, args));
    }

    /** The token a caller that does not know it puts in renew.lua's {@code value}. */
    static final String UNKNOWN_TOKEN = "0";

    /**
     * Renews with renew.lua's own arguments (ARGV[1], then per lease expected, value and, when
     * ARGV[1] is '', its lease); returns the whole reply, {codes, micros}.
     */
    List<?> renewReply(List<String> names, List<String> argv) {
        return (List<?>) await(
                backend.eval(RENEW, names.stream().map(ScriptCaller::lockKey).toList(), argv));
    }

    /** The codes of a renew reply {codes, micros}, checking its shape. */
    static List<?> codes(List<?> renewReply) {
        assertEquals(2, renewReply.size(), () -> "renew replies {codes, micros}, not " + renewReply);
        assertTrue(renewReply.get(1) instanceof Long, () -> "micros is an integer: " + renewReply);
        return (List<?>) renewReply.get(0);
    }

    /** Extends with the next of this caller's sequence numbers. */
    Object extend(String name, String owner, long leaseMs) {
        return extend(name, owner, leaseMs, sequence.incrementAndGet());
    }

    Object extend(String name, String owner, long leaseMs, long sequenceNumber) {
        return await(backend.eval(
                EXTEND, List.of(lockKey(name)), List.of(owner, Long.toString(leaseMs), Long.toString(sequenceNumber))));
    }

    CompletableFuture<Object> inspectAsync(String name) {
        return backend.eval(INSPECT, List.of(lockKey(name)), List.of());
    }

    Object inspect(String name) {
        return await(inspectAsync(name));
    }

    Object forceRelease(String name) {
        return await(backend.eval(FORCE_RELEASE, List.of(lockKey(name), channel(name)), List.of("SPUBLISH")));
    }

    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new AssertionError("call failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError("no reply within " + TIMEOUT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The exception {@code future} fails with, within the timeout. */
    static Throwable failure(CompletableFuture<?> future) {
        ExecutionException e =
                assertThrows(ExecutionException.class, () -> future.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        return e.getCause();
    }
}
