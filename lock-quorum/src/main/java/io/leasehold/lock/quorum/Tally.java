package io.leasehold.lock.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * One fan-out's replies: a call sent to {@code size} members, decided as soon as {@code needed} of
 * them succeeded or {@code size - needed + 1} did not (then no outcome can reach {@code needed}
 * successes), or every member answered. With a {@code grace}, a tally that reached {@code needed}
 * successes waits up to that long for the members still out (so that a reply a few microseconds
 * behind the majority's still counts), never longer. With a {@code patience}, a tally still undecided
 * that long after it started counting (the send, or the answer that made {@code patienceAfter} answers
 * that are not failures) is decided with the answers it has, and a member that has not answered counts
 * as one that failed: a member that died while its driver keeps its commands until its command timeout
 * (a minute by Lettuce's default) would otherwise hold every split vote that long. Counted from a
 * majority's replies, the patience waits for the members behind a majority, never for the majority
 * itself: a majority far slower than the fastest member, or than a down member's instant failure, is
 * still waited for. {@link #giveUp()} decides at once (its caller's deadline). Each answer
 * that comes after the decision is handed to the {@code late} handler (a late phase-1 grant is
 * committed or released there).
 *
 * <p><b>Threads.</b> Never blocks. Answers are taken on the threads that complete the members'
 * futures; the outcome completes, and the late handler runs, on such a thread (or on the common pool when a timer of its {@link QuorumTimer} ran out), never while this tally's lock is held: both must be fast
 * and must not block. This class is threadsafe.
 */
final class Tally {

    /**
     * One member's answer: its {@code reply}, or its {@code failure} (unwrapped from
     * {@link CompletionException}).
     */
    record Answer(
            int member, @Nullable Object reply, @Nullable Throwable failure) {
        boolean failed() {
            return failure != null;
        }
    }

    private final QuorumTimer timer;
    private final int size;
    private final int needed;
    private final Predicate<Answer> success;
    private final Duration grace;
    private final Duration patience;
    /** How many answers that are not failures start the patience; 0: the send does. */
    private final int patienceAfter;

    private final IntConsumer silent;
    private final Consumer<Answer> late;
    private final List<Answer> answers = new ArrayList<>();
    private final CompletableFuture<List<Answer>> outcome = new CompletableFuture<>();
    private int successes;
    private int others;
    private boolean decided;
    private int replies;
    /** The members the patience waited out, once it decided. */
    private List<Integer> waitedOut = List.of();

    private boolean graceStarted;
    /** The grace and patience timers scheduled while undecided: cancelled by the decision. */
    private final List<QuorumTimer.Timeout> timers = new ArrayList<>(2);

    private Tally(
            QuorumTimer timer,
            int size,
            int needed,
            Predicate<Answer> success,
            Duration grace,
            Duration patience,
            int patienceAfter,
            IntConsumer silent,
            Consumer<Answer> late) {
        if (size < 1 || needed < 1 || needed > size) {
            throw new IllegalArgumentException(
                    "a tally needs 1 <= needed <= size, but needed was " + needed + " of " + size);
        }
        this.timer = timer;
        this.size = size;
        this.needed = needed;
        this.success = success;
        this.grace = grace;
        this.patience = patience;
        this.patienceAfter = patienceAfter;
        this.silent = silent;
        this.late = late;
    }

    /**
     * Sends {@code call} to each of {@code size} members (every call is made before any answer is
     * taken, so that a member that answers at once cannot decide the tally before the others were
     * asked) and tallies their answers; a call that throws counts as that member's failure.
     */
    static Tally fanOut(
            QuorumTimer timer,
            int size,
            int needed,
            IntFunction<CompletableFuture<Object>> call,
            Predicate<Answer> success,
            Duration grace,
            Consumer<Answer> late) {
        return fanOut(timer, size, needed, call, success, grace, Duration.ZERO, 0, member -> {}, late);
    }

    /**
     * {@link #fanOut(int, int, IntFunction, Predicate, Duration, Consumer)}, decided at the latest
     * {@code patience} (none when zero) after {@code patienceAfter} answers that are not failures came
     * (0: after the send);
     * each member still silent then is handed to {@code silent} (outside this tally's lock).
     */
    static Tally fanOut(
            QuorumTimer timer,
            int size,
            int needed,
            IntFunction<CompletableFuture<Object>> call,
            Predicate<Answer> success,
            Duration grace,
            Duration patience,
            int patienceAfter,
            IntConsumer silent,
            Consumer<Answer> late) {
        Tally tally = new Tally(timer, size, needed, success, grace, patience, patienceAfter, silent, late);
        List<CompletableFuture<Object>> calls = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            CompletableFuture<Object> future;
            try {
                future = call.apply(i);
            } catch (RuntimeException e) {
                future = CompletableFuture.failedFuture(e);
            }
            calls.add(future);
        }
        if (patienceAfter == 0) {
            tally.startPatience();
        }
        for (int i = 0; i < size; i++) {
            int member = i;
            calls.get(i).whenComplete((reply, failure) -> tally.answer(new Answer(member, reply, unwrap(failure))));
        }
        return tally;
    }

    /** The members (by index) the patience waited out, once it decided the tally; else empty. */
    synchronized List<Integer> waitedOut() {
        return waitedOut;
    }

    /** The answers taken until the decision (in the order they came), once decided. */
    CompletableFuture<List<Answer>> outcome() {
        return outcome;
    }

    /** Takes one member's answer. */
    void answer(Answer answer) {
        boolean isLate;
        boolean startGrace = false;
        boolean startPatience = false;
        List<Answer> decision = null;
        synchronized (this) {
            isLate = decided;
            if (!decided) {
                answers.add(answer);
                if (!answer.failed()) {
                    replies++;
                    startPatience = replies == patienceAfter;
                }
                if (success.test(answer)) {
                    successes++;
                } else {
                    others++;
                }
                if (answers.size() == size || others >= size - needed + 1) {
                    decision = decideLocked();
                } else if (successes >= needed) {
                    if (grace.isZero()) {
                        decision = decideLocked();
                    } else if (!graceStarted) {
                        graceStarted = true;
                        startGrace = true;
                    }
                }
            }
        }
        if (isLate) {
            late.accept(answer);
        } else if (decision != null) {
            outcome.complete(decision);
        } else {
            if (startGrace) {
                keep(timer.after(grace, this::waitRanOut));
            }
            if (startPatience) {
                startPatience();
            }
        }
    }

    private void startPatience() {
        if (!patience.isZero()) {
            keep(timer.after(patience, this::patienceRanOut));
        }
    }

    /** Keeps {@code scheduled} for the decision to cancel, or cancels it now if the tally decided already. */
    private void keep(QuorumTimer.Timeout scheduled) {
        synchronized (this) {
            if (!decided) {
                timers.add(scheduled);
                return;
            }
        }
        scheduled.cancel();
    }

    /**
     * Decides now with the answers taken, unless decided already, as when the patience ran out (the
     * members that have not answered are handed to {@code silent}): the caller's deadline passed.
     */
    void giveUp() {
        patienceRanOut();
    }

    /**
     * The patience ran out: decided with the answers taken, unless decided already; the members that
     * have not answered are handed to {@code silent}.
     */
    private void patienceRanOut() {
        List<Answer> decision;
        List<Integer> silentOnes = new ArrayList<>();
        synchronized (this) {
            if (decided) {
                return; // decided in time: whoever is still out is only behind a decided majority
            }
            decision = decideLocked();
            boolean[] answered = new boolean[size];
            answers.forEach(a -> answered[a.member()] = true);
            for (int member = 0; member < size; member++) {
                if (!answered[member]) {
                    silentOnes.add(member);
                }
            }
            waitedOut = List.copyOf(silentOnes);
        }
        // the outcome first: the clean-ups it starts reach the silent members before they are skipped
        outcome.complete(decision);
        silentOnes.forEach(silent::accept);
    }

    /** The grace ran out: decided with the answers taken, unless decided already. */
    private void waitRanOut() {
        List<Answer> decision;
        synchronized (this) {
            if (decided) {
                return;
            }
            decision = decideLocked();
        }
        outcome.complete(decision);
    }

    private List<Answer> decideLocked() {
        decided = true;
        // a timer still pending would keep this tally reachable until it fires
        timers.forEach(QuorumTimer.Timeout::cancel);
        timers.clear();
        return List.copyOf(answers);
    }

    /** The cause of a failed future's failure. */
    static @Nullable Throwable unwrap(@Nullable Throwable failure) {
        Throwable t = failure;
        while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
