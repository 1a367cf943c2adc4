package io.leasehold.lock.internal;

import io.leasehold.lock.spi.LockBackend;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Sends one client's releases, and sends them again: the one place that writes a release to Redis.
 * Two kinds:
 * <ul>
 *   <li>a lease's release ({@link #release}), answered to the lease, which judges from the answer how
 *       it ended; it may hand the lock to a local waiter in the same script call (handoff.lua, see
 *       {@link Handoff}), and then the release and the waiter's attempt are one command, retried as
 *       one;</li>
 *   <li>a clean-up ({@link #releaseEventually}): the release of an owner nobody holds a lease for (an
 *       acquire that may have landed after its waiter gave up) or of a lost lease, answered to nobody,
 *       but tracked so that {@code close()} waits for it and names the locks of those it had to leave.</li>
 * </ul>
 *
 * <p>Every release is owner-checked (release.lua deletes the lock only for its owner), so a send whose
 * outcome is unknown (a transient failure: the script may have run) is simply sent again after a
 * back-off, within a budget; the answer of such a resend is read by {@link ReleaseReply#answered}. A
 * resend waits on the engine's timer; should the timer stop first (close), {@link #failWaitingResends}
 * ends it with the failure that made it wait, so that no release future waits forever.
 *
 * <p>This class is threadsafe: its three registries are concurrent maps, and the sends of one release
 * follow one another (a resend is scheduled only after the previous send's outcome).
 */
final class ReleaseSender {

    static final long FIRST_CLEANUP_RETRY_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_CLEANUP_RETRY_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** First back-off before a handoff is sent again: the waiter's attempt waits on it, as on its own retry. */
    static final long FIRST_HANDOFF_RESEND_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    private static final long MAX_HANDOFF_RESEND_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Engine engine;
    /** Releases whose resend waits on the timer, with the failure that made them wait; see {@link #failWaitingResends}. */
    private final Map<CompletableFuture<?>, Throwable> resendsPending = new ConcurrentHashMap<>();
    /**
     * Clean-ups not settled yet (queued behind a handoff, or being retried), with their lock names:
     * {@code close()} waits for them within its bound, and names the locks of those it had to leave.
     */
    private final Map<CompletableFuture<?>, String> cleanUps = new ConcurrentHashMap<>();
    /** Of those, the ones still waiting for what they follow, with how to send them (see {@link #sendDeferredCleanUpsNow}). */
    private final Map<CompletableFuture<?>, Runnable> deferredCleanUps = new ConcurrentHashMap<>();

    ReleaseSender(Engine engine) {
        this.engine = engine;
    }

    /**
     * A lease's release: the owner-checked release of lock {@code name}, handing it to {@code next}
     * (may be null) in the same call, sent again with back-off while it fails transiently and
     * {@code budgetNanos} have not passed. The future has the first conclusive answer (see
     * {@link ReleaseReply}), or the last failure; it completes where the reply arrives.
     */
    CompletableFuture<ReleaseReply> release(String name, String owner, long budgetNanos, @Nullable Handoff next) {
        CompletableFuture<ReleaseReply> done = new CompletableFuture<>();
        long giveUpAt = engine.now() + budgetNanos;
        if (next == null) {
            sendPlain(name, owner, null, giveUpAt, FIRST_CLEANUP_RETRY_NANOS, false, done);
        } else {
            new HandoffSend(name, owner, next, giveUpAt, done).send(FIRST_HANDOFF_RESEND_NANOS);
        }
        return done;
    }

    /**
     * A lease's release under a min-hold time ({@link io.leasehold.lock.LockOptions#minHoldTime}): rather
     * than deleting lock {@code key}, sets its TTL to what is left until {@code holdUntilNanos} (on the
     * engine's ticker), with extend.lua and the lease's next TTL sequence number {@code seq}, so that a
     * renewal still in flight cannot shorten it (renew.lua refuses a lower number). Sent again with
     * back-off while it fails transiently and {@code budgetNanos} have not passed: a resend finds its
     * own number applied and answers "superseded", which is as good. The future has the answer as a
     * release's ({@link ReleaseReply}: the TTL set counts as deleted), or the last failure. The script
     * publishes a release message once it set the TTL: waiters ask again, and wait for the new TTL.
     */
    CompletableFuture<ReleaseReply> releaseHolding(
            String name, String key, String owner, long holdUntilNanos, long seq, long budgetNanos) {
        CompletableFuture<ReleaseReply> done = new CompletableFuture<>();
        // The hold's end is fixed; each send sets the time left until it (at least 1 ms: PX needs it), and
        // publishes a release message, so that waiters ask again and learn the new TTL.
        Supplier<CompletableFuture<Object>> hold = () -> engine.timedCall(
                EngineScripts.EXTEND.name(),
                () -> engine.publishCommand()
                        .thenCompose(publish -> engine.backend.eval(
                                EngineScripts.EXTEND,
                                List.of(key, engine.channel(name)),
                                List.of(
                                        owner,
                                        Long.toString(Math.max(
                                                1,
                                                TimeUnit.NANOSECONDS.toMillis(
                                                        holdUntilNanos - engine.now() + 999_999))),
                                        Long.toString(seq),
                                        publish))),
                null);
        sendOwnerChecked(
                name, hold, this::holdCode, engine.now() + budgetNanos, FIRST_CLEANUP_RETRY_NANOS, false, done);
        return done;
    }

    /** extend.lua's reply as a release's: set (now, or by an earlier send), absent, or not this owner's. */
    private long holdCode(long extendCode) {
        if (extendCode == 1
                || extendCode == 2
                || (extendCode == LockBackend.CONFIRMED_PARTIALLY && engine.backend.confirmsPartially())) {
            return ReleaseReply.DELETED;
        }
        return extendCode == 0 ? ReleaseReply.ABSENT : ReleaseReply.OTHER_OWNER;
    }

    /**
     * A clean-up release (of an owner nobody holds a lease for, or of a lost lease): sent now, and
     * sent again with back-off while it fails transiently, for up to {@code leaseMs}, after which the
     * lock has expired anyway. A lock left behind by a clean-up that met a dropped connection would
     * otherwise hold every other node off for a whole lease.
     */
    void releaseEventually(String name, String owner, long leaseMs) {
        releaseEventuallyAfter(null, name, owner, leaseMs);
    }

    /**
     * {@link #releaseEventually}, sent once {@code before} (may be null) has completed, either way:
     * tracked from now on, so that {@code close()} waits for it. Returns a future that completes
     * once the clean-up has settled (answered, or given up), with nothing.
     */
    CompletableFuture<?> releaseEventuallyAfter(
            @Nullable CompletableFuture<?> before, String name, String owner, long leaseMs) {
        CompletableFuture<Object> settled = new CompletableFuture<>();
        long budget = TimeUnit.MILLISECONDS.toNanos(leaseMs);
        Runnable settle =
                () -> release(name, owner, budget, null).whenComplete((reply, error) -> settled.complete(null));
        cleanUps.put(settled, name);
        settled.whenComplete((done, error) -> cleanUps.remove(settled));
        if (before == null) {
            settle.run();
            return settled.copy();
        }
        // close() may send it ahead, near the end of its timeout (see sendDeferredCleanUpsNow); it is
        // settled only by the release that follows what it waits for, which may yet take the lock.
        deferredCleanUps.put(settled, () -> release(name, owner, budget, null));
        before.whenComplete((done, error) -> {
            deferredCleanUps.remove(settled);
            settle.run();
        });
        return settled.copy();
    }

    /** Clean-up releases not settled yet, each with its lock's name (for {@code close()}). */
    Map<CompletableFuture<?>, String> pendingCleanUps() {
        return Map.copyOf(cleanUps);
    }

    /** Of those, the ones still waiting for what they follow (for tests of the clean-ups). */
    Set<CompletableFuture<?>> deferredCleanUps() {
        return Set.copyOf(deferredCleanUps.keySet());
    }

    /**
     * Sends now every clean-up still waiting for what it was to follow (a handoff that has not settled,
     * an attempt still on its way): for {@code close()} near its end, since once the client is closed
     * nothing more is sent, and a clean-up left for later would leave its lock for a lease time; the
     * false loss it may cause a handoff still being resent is the lesser harm. Each is sent again once
     * what it follows settles, and only that settles it: an attempt that lands in the rest of
     * {@code close()}'s timeout is undone too.
     */
    void sendDeferredCleanUpsNow() {
        for (CompletableFuture<?> cleanUp : List.copyOf(deferredCleanUps.keySet())) {
            Runnable send = deferredCleanUps.remove(cleanUp);
            if (send != null) {
                send.run();
            }
        }
    }

    /** Releases whose resend waits on the timer (for the client's diagnostics). */
    int resendsWaiting() {
        return resendsPending.size();
    }

    /**
     * Ends every release whose resend waits on the timer, with the failure that made it wait: called
     * once the timer has stopped, which drops those resends, so that no release future (and no caller
     * blocked on it) waits forever.
     */
    void failWaitingResends() {
        List.copyOf(resendsPending.keySet()).forEach(this::failResend);
    }

    /**
     * The plain owner-checked release, sent now and again while it fails transiently and the budget
     * lasts; {@code handedTo} is the owner an earlier handoff of this release may have granted the
     * lock to (release.lua then answers 1 if that owner holds it), and {@code resent} says whether an
     * earlier send's outcome is unknown.
     */
    private void sendPlain(
            String name,
            String owner,
            @Nullable String handedTo,
            long giveUpAt,
            long backoffNanos,
            boolean resent,
            CompletableFuture<ReleaseReply> done) {
        // (release.lua's marker answers 1 to a resend only until the next release of the name overwrites
        // it: after that, another owner proves nothing)
        sendOwnerChecked(
                name,
                () -> GrantOrder.release(
                        engine, name, owner, handedTo, TimeUnit.NANOSECONDS.toMillis(giveUpAt - engine.now()) + 1),
                code -> code,
                giveUpAt,
                backoffNanos,
                resent,
                done);
    }

    /**
     * Sends an owner-checked command of a release ({@code call}, made anew for each send) now, and again
     * with back-off while it fails transiently and {@code giveUpAt} has not passed; completes
     * {@code done} with its reply, read by {@code releaseCode} as release.lua's (1, 0, -1), or with the
     * last failure. {@code resent} says whether an earlier send's outcome is unknown.
     */
    private void sendOwnerChecked(
            String name,
            Supplier<CompletableFuture<Object>> call,
            LongUnaryOperator releaseCode,
            long giveUpAt,
            long backoffNanos,
            boolean resent,
            CompletableFuture<ReleaseReply> done) {
        Futures.whenDone(call.get(), "the reply of a release", name, (reply, error) -> {
            if (error == null) {
                long code;
                try {
                    code = releaseCode.applyAsLong(Replies.asLong(reply, "release"));
                } catch (RuntimeException malformed) {
                    done.completeExceptionally(malformed);
                    return;
                }
                done.complete(ReleaseReply.answered(code, resent, false, engine.now()));
            } else if (!engine.isTransient(error)
                    || !resendLater(
                            done,
                            error,
                            giveUpAt,
                            backoffNanos,
                            () -> sendOwnerChecked(
                                    name,
                                    call,
                                    releaseCode,
                                    giveUpAt,
                                    Math.min(backoffNanos * 2, MAX_CLEANUP_RETRY_NANOS),
                                    true,
                                    done))) {
                done.completeExceptionally(Futures.unwrap(error));
            }
        });
    }

    /** handoff.lua with a handoff's arguments (see {@link Handoff#args}), with the command timeout. */
    private CompletableFuture<Object> handoffCall(String name, String owner, Handoff next, Runnable writing) {
        return engine.timedCall(
                EngineScripts.HANDOFF.name(),
                () -> engine.publishCommand()
                        .thenCompose(publish -> engine.backend.eval(
                                EngineScripts.HANDOFF,
                                GrantOrder.releaseKeys(engine, name),
                                next.args(owner, publish),
                                writing)),
                next::onLateReply);
    }

    /**
     * Runs {@code resend} on the timer after {@code backoffNanos}, if that is before {@code giveUpAt}
     * and the timer runs; returns false (scheduling nothing) otherwise. While it waits, {@code done} is
     * pending: if the timer stops first, {@code done} fails with {@code error} (see {@link #failResend}).
     */
    private boolean resendLater(
            CompletableFuture<?> done, Throwable error, long giveUpAt, long backoffNanos, Runnable resend) {
        if (engine.now() + backoffNanos - giveUpAt >= 0 || engine.timer.isShutDown()) {
            return false;
        }
        resendsPending.put(done, Futures.unwrap(error));
        engine.timer.schedule(
                () -> {
                    if (resendsPending.remove(done) != null) {
                        resend.run();
                    }
                },
                backoffNanos);
        if (engine.timer.isShutDown()) {
            failResend(done); // shut down meanwhile: the resend may have been dropped with the timer
        }
        return true;
    }

    private void failResend(CompletableFuture<?> done) {
        Throwable cause = resendsPending.remove(done);
        if (cause != null) {
            done.completeExceptionally(cause);
        }
    }

    /**
     * A lease's release that hands its lock to a local waiter in the same script call. The release
     * and the waiter's attempt are one command, so they are retried as one:
     * <ul>
     *   <li>a reply: the release's outcome (its 4th entry, as release.lua's reply) completes
     *       {@code done}, then the waiter gets the reply as its attempt's;</li>
     *   <li>a transient failure (the outcome is unknown: the script may have run): the same handoff is
     *       sent again after a back-off, while the release's budget lasts, and the waiter's attempt
     *       stays in flight meanwhile. A handoff is idempotent (if an earlier send granted the lock,
     *       the waiter's owner holds it and the resend answers "acquired, released"; if it yielded,
     *       the yield marker names the releasing owner and the resend answers "released"), so the
     *       answer of the resend tells both what happened. Had the waiter retried on its own, it could
     *       have taken the lock and passed it on before the release's resend ran, which would then
     *       find someone else's lock and report a loss that never happened. The waiter's clean-up,
     *       should it end meanwhile (cancel, close), waits for this release to settle
     *       ({@link Handoff#pending}) for the same reason, and the resend still names it: a lock it
     *       grants to the departed waiter is deleted by that clean-up right after;</li>
     *   <li>a failure that is not transient (a script error, as when the name's fencing counter
     *       holds a foreign value): the script refused before writing anything, so the waiter hears
     *       the error as its attempt's, and the holder's lock goes by a plain release, which needs no
     *       counter;</li>
     *   <li>the budget runs out: the waiter hears the last failure (it retries on its own, with the
     *       same owner) and the release fails with it;</li>
     *   <li>the waiter's deadline passes while a resend is pending: the waiter hears the last failure
     *       then (so its wait ends within its deadline and one command timeout), and the release
     *       goes on resending alone.</li>
     * </ul>
     * The waiter is told exactly once.
     */
    private final class HandoffSend {

        private final String name;
        private final String owner;
        private final Handoff next;
        private final long giveUpAt;
        private final CompletableFuture<ReleaseReply> done;
        private final AtomicBoolean waiterTold = new AtomicBoolean();
        /** Whether an earlier send's outcome is unknown (written before each resend is scheduled). */
        private volatile boolean resent;

        HandoffSend(String name, String owner, Handoff next, long giveUpAt, CompletableFuture<ReleaseReply> done) {
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
            Futures.whenDone(
                    handoffCall(name, owner, next, () -> written.set(engine.now())),
                    "the reply of a handoff",
                    name,
                    (reply, error) -> {
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
                            // owner and answers 1) or yielded (the release marker, which keeps every recent releasing
                            // owner, makes it answer 2, released, however often the lock moved on since); someone
                            // else's lock with no mark of ours is a loss: nothing of ours can have moved the lock on,
                            // since the waiter neither retries nor cleans up while this release is pending.
                            done.complete(ReleaseReply.answered(released, resent, true, engine.now()));
                            tellWaiter(parsed, null, sent);
                        } else if (!engine.isTransient(failure)) {
                            tellWaiter(null, failure, sent);
                            // (An earlier send of unknown outcome may have granted the waiter: release.lua answers 1
                            // if the waiter's owner holds the lock.)
                            sendPlain(
                                    name,
                                    owner,
                                    resent ? next.owner() : null,
                                    giveUpAt,
                                    FIRST_CLEANUP_RETRY_NANOS,
                                    resent,
                                    done);
                        } else {
                            Throwable transientFailure = failure;
                            if (!resendLater(
                                    done,
                                    failure,
                                    giveUpAt,
                                    backoffNanos,
                                    () -> resend(backoffNanos, transientFailure, sent))) {
                                done.completeExceptionally(Futures.unwrap(failure)); // tells the waiter too
                            }
                        }
                    });
        }

        private void resend(long backoffNanos, Throwable lastFailure, long lastSent) {
            resent = true;
            if (next.deadlinePassed()) {
                tellWaiter(null, lastFailure, lastSent); // its wait is over: it ends on this failure
            }
            send(Math.min(backoffNanos * 2, MAX_HANDOFF_RESEND_NANOS));
        }

        private void tellWaiter(@Nullable AcquireReply reply, @Nullable Throwable error, long sentNanos) {
            if (waiterTold.compareAndSet(false, true)) {
                next.onReply(reply, error, sentNanos);
            }
        }
    }
}
