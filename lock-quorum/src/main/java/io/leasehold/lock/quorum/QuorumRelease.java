package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.jspecify.annotations.Nullable;

/**
 * release.lua and force-release.lua over the quorum: the same call to every member, each with its own
 * publish command (docs/design/quorum-locks.md, "Renew, extend, release, inspect").
 *
 * <ul>
 *   <li><b>release</b>: released when a majority answers released ({@code 1}) or absent ({@code 0}): the
 *       owner is gone there either way (R15), so that a lease held on exactly M members does not report a
 *       failed release because one reply was lost. The reply is the code the engine reads
 *       (release.lua's): {@code 1} when at least one of them released it, {@code 0} when every one of
 *       them found it absent; {@code -1} when fewer than M released it or
 *       found it absent and at least M of them hold another owner (taken where it counts), unless an
 *       earlier send of the same release was confirmed by a majority (then {@code 1}: a resend after the
 *       engine lost the reply, which finds the next holder, see {@link ReleasedOwners#confirmed}); the
 *       call fails when fewer than M answered (see {@link QuorumMembers#noMajority}), and, not
 *       transiently, when M answered but neither M found the owner gone nor M another owner (a lease on exactly a
 *       majority, one of whose members is down: nothing confirms it either way until that member
 *       answers). A member still silent {@link #RELEASE_PATIENCE} after a majority answered counts as
 *       failed (as in an acquisition, a member slower than that is taken for one that is down).</li>
 *   <li><b>force-release</b>: deletes the lock on every member; {@code 1} when a lock was held by the
 *       majority's view (deleted on at least M members, counting those that did not answer as having
 *       held it), else {@code 0}: a copy on a minority (a release or clean-up still on its way there)
 *       is no lock held. Answers once a majority answered (and then at most the grace for the rest);
 *       fails like release.</li>
 * </ul>
 *
 * <p>A release of the owner of a fair waiter's latest attempt, not granted, is that waiter's clean-up
 * (it gave up): its places are taken out of the members' quorum queues too (see {@link #leave}).
 *
 * <p>A member whose call failed (transiently) is sent the release again in the background once a
 * majority answered it, until it answers ({@link ReleaseResends}).
 *
 * <p><b>Threads.</b> Never blocks; continues on the threads that complete the members' futures. This
 * class is threadsafe.
 */
final class QuorumRelease {

    static final int RELEASE_PUBLISH_ARG = 3;

    /** How long a release waits, once a majority answered, for the members that have not. */
    static final Duration RELEASE_PATIENCE = Duration.ofMillis(AcquireTiming.MAX_PATIENCE_MS);

    private static final int FORCE_RELEASE_PUBLISH_ARG = 0;

    private final QuorumMembers members;
    private final FairWaiters fairWaiters;
    private final Duration grace;
    private final ReleasedOwners released;
    private final ReleaseResends resends;

    QuorumRelease(
            QuorumMembers members,
            Duration grace,
            ReleasedOwners released,
            FairWaiters fairWaiters,
            ReleaseResends resends) {
        this.fairWaiters = fairWaiters;
        this.resends = resends;
        this.members = members;
        this.grace = grace;
        this.released = released;
    }

    /** release.lua over the quorum; see the class doc. */
    CompletableFuture<Object> release(LuaScript script, List<String> keys, List<String> args) {
        String lockKey = keys.isEmpty() ? "(none)" : keys.get(0);
        String owner = args.isEmpty() ? null : args.get(0);
        if (!keys.isEmpty() && owner != null) {
            // before it is sent: see ReleasedOwners
            released.released(
                    lockKey, owner, new SentRelease(script, keys, args, RELEASE_PUBLISH_ARG, -1, System.nanoTime()));
        }
        CompletableFuture<Void> left = leave(keys, owner);
        // The members that fail are sent it again once a majority answered (else the engine resends it all)
        ReleaseResends.Round resending = resends.round(script, keys, args, RELEASE_PUBLISH_ARG, -1);
        // A member still silent the patience after a majority answered counts as failed (and is sent it
        // again): a dead member's driver may keep the call until its command timeout, as long as the engine's
        return members.fanOut(
                        script,
                        keys,
                        args,
                        RELEASE_PUBLISH_ARG,
                        QuorumRelease::goneThere,
                        Duration.ZERO,
                        RELEASE_PATIENCE,
                        silent -> {},
                        resending::answer)
                .outcome()
                .thenCombine(left, (answers, ignored) -> answers)
                .whenComplete((answers, failure) -> resending.decided(answers))
                .thenApply(answers -> {
                    int released = 0;
                    int absent = 0;
                    int answered = 0;
                    for (Tally.Answer a : answers) {
                        if (a.failed()) {
                            continue;
                        }
                        answered++;
                        long code = Replies.asLong(a.reply(), "release");
                        if (code == 1) {
                            released++;
                        } else if (code == 0) {
                            absent++;
                        }
                    }
                    if (released + absent >= members.majority()) {
                        if (owner != null && !keys.isEmpty()) {
                            this.released.confirmed(lockKey, owner);
                        }
                        return released > 0 ? 1L : 0L;
                    }
                    if (answered < members.majority()) {
                        throw new CompletionException(members.noMajority(lockKey, "release", answers));
                    }
                    ReleasedOwners.Release earlier = owner == null ? null : this.released.find(lockKey, owner);
                    if (earlier != null && earlier.confirmed()) {
                        // a resend of a release a majority confirmed before (the engine lost its reply) that
                        // finds the next holder: the owner's lease is gone where it counts, no theft
                        return 1L;
                    }
                    int heldByAnother = answered - released - absent;
                    if (heldByAnother >= members.majority()) {
                        return -1L; // another owner holds it where it counts: taken from this owner
                    }
                    throw new CompletionException(unconfirmed(lockKey, released + absent, heldByAnother));
                });
    }

    /**
     * The failure of a release that a majority answered without confirming it either way: the owner is
     * gone from every member that answered where it was, another owner holds no majority, and the
     * members that failed or stayed silent would decide (a lease that lived on exactly a majority, one of
     * whose members is down; or a theft seen on fewer than M members: the two look alike). Not
     * transient: the usual cause is a member down, which a resend within the engine's budget does not
     * bring back, and the engine would keep the releaser that long while the lock is free (a fair
     * lock's releaser loses its place in line meanwhile); a member whose reply was lost has run the
     * release, and the members that failed are sent it again in the background (see
     * {@link ReleaseResends}).
     */
    private QuorumUnavailableException unconfirmed(String lockKey, int gone, int heldByAnother) {
        return new QuorumUnavailableException(
                String.format(
                        "no majority of the quorum could confirm the release of lock '%s': released or absent on"
                                + " %d members, held by another owner on %d, failed or silent on %d, %d needed"
                                + " (a lease that lived on exactly a majority, one of whose members is down)",
                        lockKey, gone, heldByAnother, members.size() - gone - heldByAnother, members.majority()),
                false);
    }

    /**
     * When {@code owner} made the latest attempt of a fair waiter that was not granted (see
     * {@link FairWaiters#leaving}), this release is that waiter's clean-up: its places are taken out of
     * every member's quorum queue (quorum-fair-acquire.lua, leaving), so that the next waiter heads the
     * queues at once instead of 1.5 s later. Completes once every member answered or failed (a member
     * that did not take it out lets the place lapse); at once for any other owner.
     */
    private CompletableFuture<Void> leave(List<String> keys, @Nullable String owner) {
        String waiter = owner == null || keys.size() < 2 ? null : fairWaiters.leaving(owner);
        if (waiter == null) {
            return CompletableFuture.completedFuture(null);
        }
        return FairPhaseOne.leave(members, keys.get(0), keys.get(1), waiter);
    }

    /** force-release.lua over the quorum; see the class doc. */
    CompletableFuture<Object> forceRelease(LuaScript script, List<String> keys, List<String> args) {
        String lockKey = keys.isEmpty() ? "(none)" : keys.get(0);
        if (!keys.isEmpty()) {
            // before it is sent: no put-back of a lease it ends may follow it, see ReleasedOwners
            released.forceReleased(
                    lockKey, new SentRelease(script, keys, args, FORCE_RELEASE_PUBLISH_ARG, -1, System.nanoTime()));
        }
        return members.fanOut(script, keys, args, FORCE_RELEASE_PUBLISH_ARG, a -> !a.failed(), grace, late -> {})
                .outcome()
                .thenApply(answers -> {
                    int answered = 0;
                    int deleted = 0;
                    for (Tally.Answer a : answers) {
                        if (!a.failed()) {
                            answered++;
                            deleted += Replies.asLong(a.reply(), "force-release") == 1 ? 1 : 0;
                        }
                    }
                    if (answered < members.majority()) {
                        throw new CompletionException(members.noMajority(lockKey, "force-release", answers));
                    }
                    // held by the majority's view: deleted where it could have been held on a majority,
                    // counting the members that did not answer as holding it
                    return deleted > 0 && deleted + members.size() - answered >= members.majority() ? 1L : 0L;
                });
    }

    /** Whether a member's answer to a release says the owner is gone there: released (1) or absent (0). */
    private static boolean goneThere(Tally.Answer answer) {
        if (answer.failed() || !(answer.reply() instanceof Number)) {
            return false;
        }
        long code = ((Number) answer.reply()).longValue();
        return code == 1 || code == 0;
    }
}
