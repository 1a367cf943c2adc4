package io.leasehold.lock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * A lease's release that hands its lock to a local waiter in the same script call (acquire.lua's
 * handoff; see {@link HandoffTarget}). The release and the waiter's attempt are one command, so
 * they are retried as one:
 * <ul>
 *   <li>a reply: the release's outcome (its 4th entry, as release.lua's reply) completes
 *       {@code done}, then the waiter gets the reply as its attempt's;</li>
 *   <li>a transient failure (the outcome is unknown: the script may have run): the same handoff is
 *       sent again after a back-off, while the release's budget lasts, and the waiter's attempt
 *       stays in flight meanwhile. A handoff is idempotent (if an earlier send granted the lock, the
 *       waiter's owner holds it and the resend answers "acquired, released"), so the answer of the
 *       resend tells both what happened. Had the waiter retried on its own, it could have taken
 *       the lock and passed it on before the release's resend ran, which would then find someone
 *       else's lock and report a loss that never happened. If the waiter stopped waiting meanwhile,
 *       the resend is a plain release that counts the lock as released if the waiter's owner holds
 *       it;</li>
 *   <li>a failure that is not transient (a script error, as when the name's fencing counter holds a
 *       foreign value): the script refused before writing anything, so the waiter hears the error
 *       as its attempt's, and the holder's lock goes by a plain release, which needs no counter;</li>
 *   <li>the budget runs out: the waiter hears the last failure (it retries on its own, with the
 *       same owner) and the release fails with it.</li>
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
    private final CompletableFuture<Object> done;
    private final AtomicBoolean waiterTold = new AtomicBoolean();
    /** Whether an earlier send's outcome is unknown (written before each resend is scheduled). */
    private volatile boolean resent;

    HandoffRelease(Engine engine, String name, String owner, HandoffTarget next, long giveUpAt, CompletableFuture<Object> done) {
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
    }

    /** Sends the handoff; {@code backoffNanos} is the wait before a resend, should this send fail transiently. */
    void send(long backoffNanos) {
        long sent = engine.now();
        engine.handoffCall(name, owner, next).whenComplete((reply, error) -> {
            Object released = null;
            Throwable failure = error;
            if (failure == null) {
                try {
                    List<?> fields = Replies.asList(reply, "acquire");
                    released = Replies.asLong(fields.size() > 3 ? fields.get(3) : null, "acquire (handoff)");
                } catch (RuntimeException malformed) {
                    failure = malformed;
                }
            }
            if (failure == null) {
                done.complete(resent ? afterUnknownOutcome((Long) released) : released);
                tellWaiter(reply, null, sent);
            } else if (!engine.isTransient(failure)) {
                tellWaiter(null, failure, sent);
                engine.releaseUntil(name, owner, null, giveUpAt, Engine.FIRST_CLEANUP_RETRY_NANOS, resent, done);
            } else if (!engine.resendLater(done, failure, giveUpAt, backoffNanos, () -> resend(backoffNanos))) {
                done.completeExceptionally(DefaultLease.unwrap(failure)); // tells the waiter too
            }
        });
    }

    private void resend(long backoffNanos) {
        resent = true;
        if (next.stillWaiting()) {
            send(Math.min(backoffNanos * 2, MAX_RESEND_NANOS));
        } else {
            // The waiter ended (its clean-up releases its owner): only the holder's lock is left to settle.
            engine.releaseUntil(name, owner, next.owner(), giveUpAt, Engine.FIRST_CLEANUP_RETRY_NANOS, true, done);
        }
    }

    /**
     * The release's outcome from a resend's reply. An earlier send may have run: it granted the
     * waiter (then the resend finds the waiter's owner and answers 1), or, when it was allowed to
     * yield, it released the lock for everybody, after which anything may be found. So with the
     * yield flag, absent (0) or someone else's (-1) count as released; without it they are what
     * they say (the waiter's attempt was in flight all along, so nobody of ours moved the lock on).
     */
    private Object afterUnknownOutcome(Long released) {
        return next.mayYield() && released != null && released <= 0 ? Long.valueOf(1) : released;
    }

    private void tellWaiter(@Nullable Object reply, @Nullable Throwable error, long sentNanos) {
        if (waiterTold.compareAndSet(false, true)) {
            next.onReply(reply, error, sentNanos);
        }
    }
}
