package io.leasehold.lock.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Puts a lease just granted on the members that answered its phase 1 "held" (quorum-restore.lua, through
 * {@link QuorumRestore#putBack}), so that it survives the death of members of the majority that granted it
 * without waiting for a renewal (docs/design/quorum-locks.md, "Acquire" and F12).
 *
 * <p>Why: a grant needs only M members. Under contention the others are often held at that moment by a
 * contender's transient phase-1 grant (a fair waiter heading their queues, a split vote's attempt) or by
 * the previous holder's copy whose release is still on its way; the lease then lives on exactly M members,
 * and one more member's death leaves it unconfirmable (a release unconfirmed, an extend or renewal that
 * declares it lost) although a majority of the members is up. A renewal's put-back ({@link QuorumRenewals})
 * mends that only at a renewal, and never without auto-renew. Those holders go soon (the contender's
 * clean-up follows its phase 1 within a round trip; a dead waiter's grant lapses within its grant window,
 * 1.5 s), so the acquisition tries again a few times: at once, then after {@value #FIRST_DELAY_MS} ms,
 * doubling, {@value #TRIES} tries in all (about 2.5 s, past a grant window), each member until it is put
 * back or answers anything but "the key exists". A member that fails, takes no part, or is skipped as
 * unavailable is left to the renewals.
 *
 * <p><b>Safety</b> (the put-back's own argument, see {@link QuorumRestore}): each try is sent only while a majority
 * holds the lease: before the lease's validity as the grant reported it (counted from phase 1's send, less the
 * drift: no later than any of the majority's copies ends), and never once this client sent its release or a
 * force-release of its lock ({@link ReleasedOwners}: recorded before they go out, a release under a min-hold time
 * too; a put-back that lands after the release on its member, or whose answer is lost, is released again there, or
 * has its TTL cut to the hold's end). So no other owner can hold a majority's grants meanwhile, and nothing is ever
 * overwritten: the script writes only where the name is free, and on a member taking part (it raises the member's
 * floor to the lease's token, so tokens keep rising). The copy carries what is left of the lease when it is sent,
 * so it ends no later than the majority's copies plus its own way to the member. A waiter's place in a member's
 * queue is untouched: the waiter is answered "held" there as on the majority, until the holder's release frees
 * every member.
 *
 * <p>Only members that answered phase 1 without granting are tried: a member that granted and did not
 * commit is sent the attempt's clean-up (a release of the same owner, which a copy put back there would
 * meet), and one that did not answer is committed or released when its late answer comes.
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures and on the
 * quorum's timer ({@link QuorumTimer}). Threadsafe, and keeps no mutable state: each try is decided from
 * the answers of the one before it, passed along, and the next try is set only once they all came.
 * {@link QuorumTimer#close()} fires a pending try at once, whose calls then fail on the closed members and
 * end it.
 */
final class LeaseSpread {

    /** The wait before the second try; each later wait doubles it. */
    static final long FIRST_DELAY_MS = 10;

    /** How many tries a member gets at most (the first one at once). */
    static final int TRIES = 9;

    /**
     * A lease to spread: what quorum-restore.lua writes, when its attempt started and until when
     * (System.nanoTime()) a majority holds it.
     */
    private record Granted(String lockKey, String value, long startedNanos, long validUntilNanos) {}

    private final QuorumMembers members;
    private final QuorumRestore restore;

    LeaseSpread(QuorumMembers members, QuorumRestore restore) {
        this.members = members;
        this.restore = restore;
    }

    /**
     * {@code attempt} was granted the lease of {@code token}, valid for {@code validityMs} from now (the
     * granted reply's pttl): puts it on the members of {@code held} (those that answered phase 1 without
     * granting) as they free up, in the background. The value is {@code <owner>:<token>:0}: sequence 0 is
     * below every renewal's and extend's, so they apply over it as over the committed {@code <owner>:<token>}.
     */
    void spread(AcquireAttempt attempt, long token, long validityMs, Set<Integer> held) {
        if (held.isEmpty() || validityMs <= 0) {
            return;
        }
        Granted lease = new Granted(
                attempt.lockKey,
                attempt.owner + ":" + token + ":0",
                attempt.started,
                System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(validityMs));
        tryOn(lease, List.copyOf(held), 1);
    }

    /** Try number {@code attempt} (from 1) on {@code stillHeld}; the next one once every answer came. */
    private void tryOn(Granted lease, List<Integer> stillHeld, int attempt) {
        long leftMs = TimeUnit.NANOSECONDS.toMillis(lease.validUntilNanos() - System.nanoTime());
        if (leftMs <= 0) {
            return; // the majority's copies may be gone: nothing may be put back any more
        }
        QuorumRestore.Missing missing =
                new QuorumRestore.Missing(0, lease.lockKey(), lease.value(), Long.toString(leftMs));
        List<CompletableFuture<Integer>> answers = new ArrayList<>(stillHeld.size());
        for (int member : stillHeld) {
            // "the key exists" (0): held by a contender or a copy on its way out, so asked again; anything
            // else ends this member's spread (put back, released, a later lease, not taking part, failed)
            answers.add(restore.putBack(member, missing, lease.startedNanos())
                    .handle((code, failure) -> failure == null && code == 0 ? member : null));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenRun(() -> {
            List<Integer> again = answers.stream()
                    .map(CompletableFuture::join)
                    .filter(Objects::nonNull)
                    .toList();
            if (!again.isEmpty() && attempt < TRIES) {
                Duration wait = Duration.ofMillis(FIRST_DELAY_MS << (attempt - 1));
                members.timer().after(wait, () -> tryOn(lease, again, attempt + 1));
            }
        });
    }
}
