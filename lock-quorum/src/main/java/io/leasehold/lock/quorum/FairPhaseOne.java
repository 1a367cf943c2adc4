package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Phase 1 of a fair waiter's acquisition over the quorum, and its leave: quorum-fair-acquire.lua's keys
 * and arguments, and what its reply becomes (docs/design/quorum-locks.md, "Waiting"). One home for the
 * rules that {@link QuorumAcquire} (an attempt, and the leave after its commit) and {@link QuorumRelease}
 * (a given-up waiter's clean-up) share. Stateless: the waiters' tickets live in {@link FairWaiters}.
 */
final class FairPhaseOne {

    static final LuaScript SCRIPT = LuaScript.bundled(ScriptNames.QUORUM_FAIR_ACQUIRE);

    private FairPhaseOne() {}

    /**
     * The script's keys for the lock {@code lockKey} (whose fencing counter is {@code fenceKey}): the lock,
     * its counter and the quorum queue's two keys (LockKeys.quorumQueueKey and quorumWaitersKey of the
     * name), which no single-master script touches: release.lua's handoff never grants a member's lock to
     * a waiter of the quorum.
     */
    static List<String> keys(String lockKey, String fenceKey) {
        return List.of(lockKey, fenceKey, lockKey + ":quorum-queue", lockKey + ":quorum-waiters");
    }

    /**
     * An attempt's arguments: acquire.lua's {@code owner}, {@code lease} and {@code counterTtl}, the
     * {@code waiter} ('' for an attempt that will not wait), its {@code waiterLease} and its
     * {@code ticket} ('' until chosen).
     */
    static List<String> attemptArgs(
            String owner, String lease, String counterTtl, String waiter, String waiterLease, String ticket) {
        return List.of(owner, lease, counterTtl, waiter, waiterLease, ticket);
    }

    /** The leave of {@code waiter}: its places taken out (owner ''). */
    static List<String> leaveArgs(String waiter) {
        return List.of("", "0", "0", waiter, "0", "");
    }

    /**
     * Sends the leave of {@code waiter} to every member, for the lock {@code lockKey} (whose fencing
     * counter is {@code fenceKey}): after a commit (its grants keep its places), or when it gave up.
     * Completes once every member answered or failed (a member that did not take the place out lets it
     * lapse, a waiter lease after the waiter's last call). The leave publishes nothing: it is no release.
     */
    static CompletableFuture<Void> leave(QuorumMembers members, String lockKey, String fenceKey, String waiter) {
        List<String> queueKeys = keys(lockKey, fenceKey);
        List<String> args = leaveArgs(waiter);
        CompletableFuture<?>[] calls = new CompletableFuture<?>[members.size()];
        for (int m = 0; m < members.size(); m++) {
            calls[m] = members.eval(m, SCRIPT, queueKeys, args, -1).exceptionally(failed -> null);
        }
        return CompletableFuture.allOf(calls);
    }

    /**
     * The contended reply a fair waiter's engine gets: acquire.lua's {@code {0, token, ttl, place}} with
     * the TTL at most a third of the waiter lease, so that the waiter asks again (and so keeps its
     * places: the engine keeps no place of a quorum's waiter) within that, whatever the holder's TTL.
     */
    static List<Object> askAgainWithin(Object contendedReply, long waiterLeaseMs) {
        List<?> contended = Replies.list(contendedReply, "acquire");
        long renewMs = Math.max(1, waiterLeaseMs / 3);
        long ttl = Replies.asLong(contended.get(2), "acquire");
        List<Object> clamped = new ArrayList<>(contended);
        clamped.set(2, ttl < 0 ? renewMs : Math.min(ttl, renewMs));
        return clamped;
    }
}
