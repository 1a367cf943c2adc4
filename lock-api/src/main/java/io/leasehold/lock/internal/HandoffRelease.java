package io.leasehold.lock.internal;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * A lease's release that hands its lock to a local waiter in the same script call (handoff.lua;
 * see {@link HandoffTarget}). The release and the waiter's attempt are one command, so
 * they are retried as one:
 * <ul>
 *   <li>a reply: the release's outcome (its 4th entry, as release.lua's reply) completes
 *       {@code done}, then the waiter gets the reply as its attempt's;</li>
 *   <li>a transient failure (the outcome is unknown: the script may have run): the same handoff is
 *       sent again after a back-off, while the release's budget lasts, and the waiter's attempt
 *       stays in flight meanwhile. A handoff is idempotent (if an earlier send granted the lock, the
 *       waiter's owner holds it and the resend answers "acquired, released"; if it yielded, the
 *       yield marker names the releasing owner and the resend answers "released"), so the answer
 *       of the resend tells both what happened. Had the waiter retried on its own, it could have
 *       taken the lock and passed it on before the release's resend ran, which would then find
 *       someone else's lock and report a loss that never happened. The waiter's clean-up, should
 *       it end meanwhile (cancel, close), waits for this release to settle
 *       ({@link HandoffTarget#pending}) for the same reason, and the resend still names it: a
 *       lock it grants to the departed waiter is deleted by that clean-up right after;</li>
 *   <li>a failure that is not transient (a script error, as when the name's fencing counter holds a
 *       foreign value): the script refused before writing anything, so the waiter hears the error
 *       as its attempt's, and the holder's lock goes by a plain release, which needs no counter;</li>
 *   <li>the budget runs out: the waiter hears the last failure (it retries on its own, with the
 *       same owner) and the release fails with it;</li>
 *   <li>the waiter's deadline passes while a resend is pending: the waiter hears the last failure
 *       then (so its wait ends within its deadline and one command timeout), and the release goes
 *       on resending alone.</li>
 * </ul>
 *
 * <p>This class is threadsafe: sends follow one another (a resend is scheduled only after the
 * previous send's outcome), and the waiter is told exactly once.
 */
final class HandoffRelease {

    /** First back-off before a handoff is sent again: the waiter's attempt waits on it, as on its own retry. */
    static final long FIRST_RESEND_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final long MAX_RESEND_NANOS = TimeUnit.SECONDS.toNanos(1);
    private final Engine engine;
    private final String name;
    private final String owner;
    private final HandoffTarget next;
    private final long giveUpAt;
    private final CompletableFuture<ReleaseReply> done;
    private final AtomicBoolean waiterTold = new AtomicBoolean();
    /** Whether an earlier send's outcome is unknown (written before each resend is scheduled). */
    private volatile boolean resent;

    HandoffRelease(
            Engine engine,
            String name,
            String owner,
            HandoffTarget next,
            long giveUpAt,
            CompletableFuture<ReleaseReply> done) {
        this.engine = engine;
        this.name = name;
        this.owner = owner;
        this.next = next;
        this.giveUpAt = giveUpAt;
        this.done = done;
        // However the release ends (the timer stopping included), the waiter's attempt ends with it.
        done.whenComplete((released, error) -> {
            if (error != null) {
                tellWaiter(null, error, engine.now());
            }
        });
        next.pending(done);
    }

    /** Sends the handoff; {@code backoffNanos} is the wait before a resend, should this send fail transiently. */
    void send(long backoffNanos) {
        // The waiter's lease counts from when the backend writes the handoff (see Acquisition.send).
        AtomicLong written = new AtomicLong(engine.now());
        engine.handoffCall(name, owner, next, () -> written.set(engine.now())).whenComplete((reply, error) -> {
            long sent = written.get();
            AcquireReply parsed = null;
            Throwable failure = error;
            if (failure == null) {
                try {
                    parsed = AcquireReply.parseHandoff(reply); // once: the waiter gets it parsed
                } catch (RuntimeException malformed) {
                    failure = malformed;
                }
            }
            if (failure == null) {
                long released = Objects.requireNonNull(parsed.handoff());
                if (released == AcquireReply.RELEASED_BY_EARLIER_YIELD) {
                    released = ReleaseReply.DELETED;
                }
                // An earlier send may have run and granted the waiter (this send then finds the waiter's
                // owner and answers 1) or yielded (the marker makes it answer 2, released, even if another
                // client holds the lock by now); someone else's lock with no marker of ours is a loss:
                // nothing of ours can have moved the lock on, since the waiter neither retries nor cleans
                // up while this release is pending.
                done.complete(ReleaseReply.answered(released, resent, true, engine.now()));
                tellWaiter(parsed, null, sent);
            } else if (!engine.isTransient(failure)) {
                tellWaiter(null, failure, sent);
                // (An earlier send of unknown outcome may have granted the waiter: release.lua answers 1
                // if the waiter's owner holds the lock.)
                engine.releaseUntil(
                        name,
                        owner,
                        resent ? next.owner() : null,
                        giveUpAt,
                        Engine.FIRST_CLEANUP_RETRY_NANOS,
                        resent,
                        done);
            } else {
                Throwable transientFailure = failure;
                if (!engine.resendLater(
                        done, failure, giveUpAt, backoffNanos, () -> resend(backoffNanos, transientFailure, sent))) {
                    done.completeExceptionally(DefaultLease.unwrap(failure)); // tells the waiter too
                }
            }
        });
    }

    private void resend(long backoffNanos, Throwable lastFailure, long lastSent) {
        resent = true;
        if (next.deadlinePassed()) {
            tellWaiter(null, lastFailure, lastSent); // its wait is over: it ends on this failure
        }
        send(Math.min(backoffNanos * 2, MAX_RESEND_NANOS));
    }

    private void tellWaiter(@Nullable AcquireReply reply, @Nullable Throwable error, long sentNanos) {
        if (waiterTold.compareAndSet(false, true)) {
            next.onReply(reply, error, sentNanos);
        }
    }
}
