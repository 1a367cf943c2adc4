package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Sends a release that a majority confirmed again, in the background, to each member whose call failed
 * (down, cut off, or skipped after an earlier failure), so that the lock there goes once the member
 * answers again, not when its TTL runs out: until then that member's copy keeps a majority from forming
 * whenever one more member is down.
 *
 * <p>A resend is the very call the member missed, checked against the owner, with the member's own
 * publish command, so it does what the first send would have done had it arrived late: it never touches
 * a lock another owner took there meanwhile (owners are random per attempt). That is release.lua, or,
 * for a release under a min-hold time, extend.lua with the lease's last sequence number and the time
 * left of the hold (1 ms once it is up, which frees the lock there at once): a member where the first
 * send did run answers "superseded" and keeps its TTL. A release no majority answered is not resent
 * here: the engine resends the whole release after a failure of unknown outcome.
 *
 * <p>Each member has one queue of the releases it missed and one resend out at a time, whatever the
 * number of locks: the oldest is sent again after {@value #FIRST_DELAY_MS} ms, doubling to
 * {@value #MAX_DELAY_MS} ms while the member fails; once it answers (any reply), the next follows at
 * once. A release leaves the queue at that answer, at a failure that is not transient (a script error,
 * which a resend would only repeat), when the quorum's largest lease has passed since it was first sent
 * (no copy of the lease outlives that: nothing renews a released lease, and a renewal already on its
 * way sets at most one lease), or when the quorum closes. A member down for long keeps at most
 * {@value #MAX_QUEUED} releases: beyond that the oldest is dropped, and its lock there expires with its
 * TTL, as without resends.
 *
 * <p><b>Threads.</b> Never blocks: each resend is set on the quorum's timer and continues on the thread
 * that completes the member's call. This class is threadsafe: each member's queue is owned by its
 * {@link MemberResends}, under its monitor.
 */
final class ReleaseResends {

    static final long FIRST_DELAY_MS = 50;
    static final long MAX_DELAY_MS = 2_000;
    static final int MAX_QUEUED = 10_000;

    private final QuorumMembers members;
    private final long maxLeaseNanos;
    private final MemberResends[] perMember;

    private volatile boolean closed;

    ReleaseResends(QuorumMembers members, long maxLeaseMs) {
        this.members = members;
        this.maxLeaseNanos = TimeUnit.MILLISECONDS.toNanos(maxLeaseMs);
        this.perMember = new MemberResends[members.size()];
        for (int i = 0; i < perMember.length; i++) {
            perMember[i] = new MemberResends(i);
        }
    }

    /**
     * The resends of one release fanned out now: hand it each member's answer ({@link Round#answer}, the
     * fan-out's late answers too) and the answers the fan-out was decided with ({@link Round#decided}).
     *
     * @param ttlArg the index of the TTL argument to count down (extend.lua's, under a min-hold time), or -1
     */
    Round round(LuaScript script, List<String> keys, List<String> args, int publishArg, int ttlArg) {
        return new Round(new SentRelease(script, keys, args, publishArg, ttlArg, System.nanoTime()));
    }

    /**
     * Sends {@code script} to {@code member} again until it answers (see the class doc); {@code sentNanos}
     * is when the release was first sent ({@link System#nanoTime()}).
     */
    void resend(int member, LuaScript script, List<String> keys, List<String> args, int publishArg, long sentNanos) {
        resend(member, new SentRelease(script, keys, args, publishArg, -1, sentNanos));
    }

    /** Sends {@code sent} to {@code member} again until it answers (see the class doc). */
    void resend(int member, SentRelease sent) {
        resend(member, new Missed(sent, sent.sentNanos() + maxLeaseNanos));
    }

    private void resend(int member, Missed missed) {
        if (!closed) {
            perMember[member].add(missed);
        }
    }

    /** How many releases wait to be sent again, over all members. */
    int pending() {
        int pending = 0;
        for (MemberResends queue : perMember) {
            pending += queue.size();
        }
        return pending;
    }

    /** Ends every resend: the quorum closes (its timer then fires the resends set, which find nothing). */
    void close() {
        closed = true;
        for (MemberResends queue : perMember) {
            queue.clear();
        }
    }

    /**
     * One release fanned out: its failed members are sent it again once a majority answered, whether
     * the failure came before the decision or after it (a late answer waits for the decision).
     */
    final class Round {
        private final SentRelease sent;
        private final CompletableFuture<Boolean> majorityAnswered = new CompletableFuture<>();

        private Round(SentRelease sent) {
            this.sent = sent;
        }

        /** A member's answer: resent if it failed, once a majority answered. */
        void answer(Tally.Answer answer) {
            majorityAnswered.thenAccept(answered -> {
                if (answered && answer.failed()) {
                    resend(answer.member(), sent);
                }
            });
        }

        /** The answers the fan-out was decided with; null when it failed. */
        void decided(@Nullable List<Tally.Answer> answers) {
            int answered = answers == null
                    ? 0
                    : (int) answers.stream().filter(a -> !a.failed()).count();
            majorityAnswered.complete(answered >= members.majority());
            if (answers != null) {
                answers.forEach(this::answer);
            }
        }
    }

    /** A release a member missed, and until when it is worth sending. */
    private record Missed(SentRelease sent, long deadlineNanos) {
        boolean expired(long now) {
            return now - deadlineNanos > 0;
        }
    }

    /** One member's missed releases, sent again one at a time. */
    private final class MemberResends {
        private final int member;
        private final ArrayDeque<Missed> queue = new ArrayDeque<>(); // guarded by this
        private boolean running; // a resend is set or out; guarded by this

        MemberResends(int member) {
            this.member = member;
        }

        synchronized void add(Missed missed) {
            if (queue.size() >= MAX_QUEUED) {
                queue.pollFirst(); // the oldest: its copy expires soonest
            }
            queue.addLast(missed);
            if (!running) {
                running = true;
                after(FIRST_DELAY_MS);
            }
        }

        synchronized int size() {
            return queue.size();
        }

        synchronized void clear() {
            queue.clear();
        }

        private void after(long delayMs) {
            members.timer().after(Duration.ofMillis(delayMs), () -> sendOldest(delayMs));
        }

        private void sendOldest(long delayMs) {
            Missed oldest;
            synchronized (this) {
                long now = System.nanoTime();
                while (!queue.isEmpty() && queue.peekFirst().expired(now)) {
                    queue.pollFirst();
                }
                oldest = closed ? null : queue.peekFirst();
                if (oldest == null) {
                    running = false;
                    return;
                }
            }
            SentRelease release = oldest.sent();
            members.eval(
                            member,
                            release.script(),
                            release.keys(),
                            release.argsNow(System.nanoTime()),
                            release.publishArg())
                    .whenComplete((reply, failure) -> {
                        if (failure == null || !members.isTransient(member, failure)) {
                            done(oldest); // answered, or a failure a resend would only repeat
                        } else {
                            after(Math.min(delayMs * 2, MAX_DELAY_MS));
                        }
                    });
        }

        private void done(Missed sent) {
            synchronized (this) {
                queue.remove(sent);
            }
            // the next at once (the member answers), from the timer's runner: never a recursion as deep
            // as the queue when calls complete on the caller's thread
            members.timer().after(Duration.ZERO, () -> sendOldest(FIRST_DELAY_MS));
        }
    }
}
