package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockKeys;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.spi.ScriptNames;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Puts a renewed lease back on the members that lost it (quorum-restore.lua), so that a lease a
 * majority confirms lives on every member that answers, and survives the death of a member of that
 * majority (docs/design/quorum-locks.md, "Renew, extend, release, inspect"). A lease goes missing on a
 * member when its grant there came too late or was another attempt's, or when the member did not hear
 * the renewals for longer than the lease (a partition, a pause).
 *
 * <p>Only a renewal that a majority confirmed asks for it, or an acquisition that a majority just committed, while
 * that majority's copies last ({@link LeaseSpread}, through {@link #putBack}): no other owner can then hold a
 * majority's grants (so no later lease of the lock can be committed anywhere), and the script puts a lease back
 * only where the name is free and the member takes part in grants, raising the member's floor to its token (the
 * floor is the key prefix's, raised by every lock committed there: it cannot tell a later lease of this lock, so it
 * does not refuse a put-back). Only what is left of the renewal's lease, and never after the lease's release (see
 * {@link #restore}): a copy of a lease nobody holds would keep grants off that member (with another member down,
 * off the whole lock), and keep the next holder's lease on exactly a majority. A member that puts nothing back,
 * fails or does not answer within the wait simply stays unconfirmed: the next renewal asks again. Extends carry no
 * token (extend.lua's arguments), so only the watchdog's renewals and the acquisitions put leases back.
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures, or on
 * the JDK's delayed executor when the wait runs out. Threadsafe: each call keeps its own state.
 */
final class QuorumRestore {

    static final LuaScript RESTORE = LuaScript.bundled(ScriptNames.QUORUM_RESTORE);

    private final QuorumMembers members;
    private final Duration wait;
    private final ReleasedOwners released;
    private final ReleaseResends resends;

    /**
     * @param wait how long a renewal waits for the members' answers before it answers itself (they were
     *     just heard from, so one round trip is expected; a later answer still puts the lease back, and
     *     counts at the next renewal)
     */
    QuorumRestore(QuorumMembers members, Duration wait, ReleasedOwners released, ReleaseResends resends) {
        this.members = members;
        this.wait = wait;
        this.released = released;
        this.resends = resends;
    }

    /** One lease a renewal found missing on some members: its lock key, value and lease, as renew.lua took them. */
    record Missing(int lease, String lockKey, String value, String leaseMs) {
        /** The lease's owner: its value's part before the first ':'. */
        String owner() {
            int sep = value.indexOf(':');
            return sep < 0 ? value : value.substring(0, sep);
        }
    }

    /**
     * Puts back {@code missing.get(member)} on each member, one call per member and key prefix, with
     * what is left of the renewal's lease (sent at {@code renewalSentNanos}): a put-back never outlives
     * the copies the renewal set on the majority by more than its own way to the member. A lease released
     * since (see {@link ReleasedOwners}) is not put back; one released while its put-back was on the way
     * is released again on that member once the put-back answered, heard by the waiters (the copy may have
     * kept them off the member meanwhile).
     *
     * @return per member, the renewal's lease indexes put back there within the wait; never fails
     */
    CompletableFuture<Map<Integer, Set<Integer>>> restore(Map<Integer, List<Missing>> missing, long renewalSentNanos) {
        Map<Integer, Set<Integer>> restored = new ConcurrentHashMap<>();
        List<CompletableFuture<Void>> calls = new ArrayList<>();
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - renewalSentNanos + 999_999);
        missing.forEach((member, leases) -> {
            List<Missing> stillHeld = new ArrayList<>();
            for (Missing m : leases) {
                long left = Long.parseLong(m.leaseMs()) - elapsedMs;
                if (left > 0 && released.find(m.lockKey(), m.owner(), renewalSentNanos) == null) {
                    stillHeld.add(new Missing(m.lease(), m.lockKey(), m.value(), Long.toString(left)));
                }
            }
            for (List<Missing> samePrefix : byPrefix(stillHeld).values()) {
                calls.add(restoreOn(member, samePrefix, restored, renewalSentNanos));
            }
        });
        return CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                .completeOnTimeout(null, wait.toNanos(), TimeUnit.NANOSECONDS)
                .handle((ignored, failure) -> snapshot(restored));
    }

    private CompletableFuture<Void> restoreOn(
            int member, List<Missing> leases, Map<Integer, Set<Integer>> restored, long sinceNanos) {
        List<String> keys = new ArrayList<>(leases.size() + 1);
        List<String> args = new ArrayList<>(2 * leases.size());
        keys.add(LockKeys.quorumRecordKey(QuorumAcquire.prefixOf(leases.get(0).lockKey())));
        for (Missing m : leases) {
            keys.add(m.lockKey());
            args.add(m.value());
            args.add(m.leaseMs());
        }
        return members.eval(member, RESTORE, keys, args, -1).handle((reply, failure) -> {
            if (failure != null) {
                leases.forEach(m -> undoneAfterRelease(member, m, sinceNanos, false)); // it may have landed
                return null;
            }
            if (!(reply instanceof List<?> parts) || parts.size() != 1 || !(parts.get(0) instanceof List<?> codes)) {
                return null; // failed, or not taking part ({-2}): the lease stays unconfirmed there
            }
            for (int i = 0; i < codes.size() && i < leases.size(); i++) {
                if (Replies.asLong(codes.get(i), "quorum-restore") != 1) {
                    continue;
                }
                Missing m = leases.get(i);
                if (undoneAfterRelease(member, m, sinceNanos, true)) { // released while the put-back was on its way
                    continue;
                }
                restored.computeIfAbsent(member, k -> ConcurrentHashMap.newKeySet())
                        .add(m.lease());
            }
            return null;
        });
    }

    /** {@link #putBack}'s answer when the lease was released before the put-back was sent, or undone after. */
    static final long RELEASED = -4;

    /**
     * Puts {@code lease} back on {@code member} (quorum-restore.lua, one lease), as {@link #restore} does
     * each lease: not sent once the lease was released or force-released since {@code sinceNanos} (when the
     * caller last knew the lease held; see {@link ReleasedOwners}), and released again on the member (heard
     * by the waiters; under a min-hold time, its TTL cut to the hold's end) when the release came while it
     * was on its way, also when the call failed (it may have landed, its answer lost). Its lease must be
     * what is left of the lease the caller knows a majority holds.
     *
     * @return quorum-restore.lua's code for it ({@code 1} put back, {@code 0} the key exists, {@code -2} the
     *     member takes no part), or {@link #RELEASED}; fails
     *     when the call does, or with a reply it cannot read
     */
    CompletableFuture<Long> putBack(int member, Missing lease, long sinceNanos) {
        if (released.find(lease.lockKey(), lease.owner(), sinceNanos) != null) {
            return CompletableFuture.completedFuture(RELEASED);
        }
        List<String> keys = List.of(LockKeys.quorumRecordKey(QuorumAcquire.prefixOf(lease.lockKey())), lease.lockKey());
        List<String> args = List.of(lease.value(), lease.leaseMs());
        return members.eval(member, RESTORE, keys, args, -1)
                .whenComplete((reply, failure) -> {
                    if (failure != null) {
                        undoneAfterRelease(member, lease, sinceNanos, false); // it may have landed, its answer lost
                    }
                })
                .thenApply(reply -> {
                    List<?> parts = Replies.list(reply, "quorum-restore");
                    if (parts.size() != 1) {
                        throw Replies.unexpected(reply, "quorum-restore of one lease");
                    }
                    if (!(parts.get(0) instanceof List<?> codes)) {
                        return Replies.asLong(parts.get(0), "quorum-restore"); // {-2}: not taking part
                    }
                    if (codes.size() != 1) {
                        throw Replies.unexpected(reply, "quorum-restore of one lease");
                    }
                    long code = Replies.asLong(codes.get(0), "quorum-restore");
                    return code == 1 && undoneAfterRelease(member, lease, sinceNanos, true) ? RELEASED : code;
                });
    }

    /**
     * When {@code lease}, just put back on {@code member} ({@code landed}; else perhaps put back: its call
     * failed), was released while the put-back was on its way (or force-released since {@code sinceNanos}),
     * sends the release again there: heard by the waiters (the copy may have kept them off the member
     * meanwhile), and sent again until the member answers ({@link ReleaseResends}); whether it did. A
     * force-release is sent again only where the copy is known to have landed: it deletes whoever holds
     * the name, and where the put-back's call failed the name may be a later holder's by then (that copy,
     * if any, then lives until its TTL runs out).
     */
    private boolean undoneAfterRelease(int member, Missing lease, long sinceNanos, boolean landed) {
        ReleasedOwners.Release release = released.find(lease.lockKey(), lease.owner(), sinceNanos);
        if (release == null
                || (!landed
                        && ScriptNames.FORCE_RELEASE.equals(
                                release.sent().script().name()))) {
            return false;
        }
        // the release's own call again (a hold's with what is left of it): the copy is deleted, or its TTL
        // cut to the hold's end (the put-back's sequence 0 is below the hold's)
        SentRelease sent = release.sent();
        members.eval(member, sent.script(), sent.keys(), sent.argsNow(System.nanoTime()), sent.publishArg())
                .whenComplete((reply, failure) -> {
                    if (failure != null && members.isTransient(member, failure)) {
                        resends.resend(member, sent);
                    }
                });
        return true;
    }

    private static Map<String, List<Missing>> byPrefix(List<Missing> leases) {
        Map<String, List<Missing>> groups = new LinkedHashMap<>();
        for (Missing m : leases) {
            groups.computeIfAbsent(QuorumAcquire.prefixOf(m.lockKey()), k -> new ArrayList<>())
                    .add(m);
        }
        return groups;
    }

    /** What was put back by now: later answers still put leases back, but count at the next renewal. */
    private static Map<Integer, Set<Integer>> snapshot(Map<Integer, Set<Integer>> restored) {
        Map<Integer, Set<Integer>> copy = new HashMap<>();
        restored.forEach((member, leases) -> copy.put(member, Set.copyOf(leases)));
        return copy;
    }
}
