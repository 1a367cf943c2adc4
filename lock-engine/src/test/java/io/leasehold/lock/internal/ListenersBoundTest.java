package io.leasehold.lock.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockException;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.ReleaseUnconfirmedException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The bounded listener queue, event by event, with a bound of 4 and an event thread the test runs by
 * hand (so that "the listener is stuck" is simply "the test has not run the queue yet"): what is
 * dropped, what is dropped whole, what is never dropped, and how the listener is told.
 */
class ListenersBoundTest {

    private static final int BOUND = 4;
    private static final Duration MS = Duration.ofMillis(1);
    private static final LockException CONTENDED = new LockTimeoutException("k", MS);

    private final HandRunExecutor eventThread = new HandRunExecutor();
    private final Recorder heard = new Recorder();
    private final Listeners listeners = new Listeners(List.of(heard), eventThread, BOUND);

    @RegisterExtension
    final CapturedEngineLog log = new CapturedEngineLog();

    @Test
    void shouldDropOneOffEventsPastTheBoundAndReportTheCountOnceTheQueueHasRoom() {
        // Given a listener that has not taken any of 6 events yet
        for (int i = 0; i < 6; i++) {
            listeners.acquireFailed("k", CONTENDED, MS);
        }
        // When it catches up
        eventThread.runAll();
        // Then it heard the 4 that fit, and was told of the 2 dropped once the queue was down to half
        assertEquals(List.of("failed k", "failed k", "dropped 2", "failed k", "failed k"), heard.events, "heard");
    }

    @Test
    void shouldDropAWholeLeaseWhoseAcquiredWasDroppedButStillLogItsLoss() {
        fillQueue();
        // A lease whose onAcquired finds the queue full
        listeners.acquired("k", 7, MS, MS);
        eventThread.runAll();
        heard.events.clear();
        // Then none of its later events is reported, although the queue has room now
        listeners.renewed("k", 7);
        listeners.renewalFailed("k", 7, new RuntimeException("timeout"));
        listeners.leaseUncertain("k", 7, MS, new RuntimeException("timeout"));
        listeners.leaseReconfirmed("k", 7);
        listeners.released("k", 7, MS);
        // And of another unreported lease, the loss is logged but not reported
        fillQueue();
        listeners.acquired("k", 8, MS, null);
        eventThread.runAll();
        heard.events.clear();
        listeners.leaseLost(new LeaseLoss("k", 8, LeaseLoss.Reason.STOLEN, Instant.now(), null));
        eventThread.runAll();
        assertEquals(List.of(), heard.events, "heard of the unreported leases");
        assertEquals(1, linesContaining("(fencing token 8) lost: STOLEN"), "loss log lines: " + log.messages());
        assertEquals(1, linesContaining("(fencing token 7) is uncertain"), "uncertain log lines: " + log.messages());
    }

    @Test
    void shouldNeverDropTheEndingOfAReportedStart() {
        // Given a lease and a wait that were reported
        listeners.acquired("k", 7, MS, MS);
        listeners.waitStarted("w");
        listeners.leaseUncertain("k", 7, MS, new RuntimeException("timeout"));
        // When their endings come while the queue is full
        listeners.acquireFailed("k", CONTENDED, MS);
        listeners.acquireFailed("k", CONTENDED, MS); // dropped: 3 + 1 already wait
        listeners.leaseReconfirmed("k", 7);
        listeners.released("k", 7, MS);
        listeners.waitEnded("w", MS);
        eventThread.runAll();
        // Then they are admitted past the bound, in order
        assertEquals(
                List.of(
                        "handoff k 7",
                        "acquired k 7",
                        "waitStarted w",
                        "uncertain k 7",
                        "failed k",
                        "reconfirmed k 7",
                        "dropped 1", // once no more than half the bound wait
                        "released k 7",
                        "waitEnded w"),
                heard.events,
                "heard");
    }

    @Test
    void shouldTreatAnUnconfirmedReleaseAsAnEndingOfItsLease() {
        ReleaseUnconfirmedException unconfirmed = new ReleaseUnconfirmedException("k", "no reply", null);
        // A reported lease's unconfirmed release passes a full queue
        listeners.acquired("k", 7, MS, null);
        fillQueue();
        listeners.releaseUnconfirmed("k", 7, MS, unconfirmed);
        // An unreported lease's is logged, not reported
        listeners.acquired("k", 8, MS, null); // dropped: the queue is full
        eventThread.runAll();
        listeners.releaseUnconfirmed("k", 8, MS, unconfirmed);
        eventThread.runAll();
        assertEquals(List.of("acquired k 7", "dropped 1", "releaseUnconfirmed k 7"), heard.events, "heard");
        assertEquals(1, linesContaining("(fencing token 8) not confirmed"), "log lines: " + log.messages());
    }

    @Test
    void shouldSkipOneEndingOfTheNameForEachDroppedWaitStart() {
        fillQueue();
        listeners.waitStarted("w"); // dropped
        eventThread.runAll();
        listeners.waitStarted("w"); // reported
        heard.events.clear();
        // Two waits of the name end: one ending is skipped, so that starts and endings stay equal
        listeners.waitEnded("w", MS);
        listeners.waitEnded("w", MS);
        eventThread.runAll();
        assertEquals(List.of("waitStarted w", "waitEnded w"), heard.events, "heard");
    }

    @Test
    void shouldDropAnUncertaintyWholeWhenItsStartIsDropped() {
        listeners.acquired("k", 7, MS, null);
        fillQueue(); // 1 + 3 one-offs: full
        listeners.leaseUncertain("k", 7, MS, new RuntimeException("timeout")); // dropped, log line and all
        eventThread.runAll();
        heard.events.clear();
        listeners.leaseReconfirmed("k", 7);
        listeners.released("k", 7, MS);
        eventThread.runAll();
        assertEquals(List.of("released k 7"), heard.events, "heard after the dropped uncertainty");
        assertEquals(0, linesContaining("is uncertain"), "uncertain log lines: " + log.messages());
        assertEquals(0, linesContaining("is held again"), "reconfirmed log lines: " + log.messages());
    }

    @Test
    void shouldLogTheFirstDropOnceAndReportEveryEpisode() {
        fillQueue();
        listeners.acquireFailed("k", CONTENDED, MS);
        eventThread.runAll();
        fillQueue();
        listeners.acquireFailed("k", CONTENDED, MS);
        listeners.acquireFailed("k", CONTENDED, MS);
        eventThread.runAll();
        List<String> reports =
                heard.events.stream().filter(e -> e.startsWith("dropped")).collect(Collectors.toList());
        assertEquals(List.of("dropped 1", "dropped 2"), reports, "onEventsDropped calls");
        assertEquals(1, linesContaining("event(s) were dropped"), "drop log lines: " + log.messages());
        assertTrue(
                log.messages().stream()
                        .anyMatch(line -> line.contains("1 event(s) were dropped because 4 were already waiting")),
                "the first drop's line: " + log.messages());
    }

    @Test
    void shouldNeitherDeliverNorCountEventsAfterTheEventThreadStopped() {
        eventThread.shutDown();
        for (int i = 0; i < 10; i++) {
            listeners.acquireFailed("k", CONTENDED, MS);
        }
        eventThread.reopen();
        listeners.acquireFailed("k", CONTENDED, MS);
        eventThread.runAll();
        assertEquals(List.of("failed k"), heard.events, "heard after the stop");
    }

    /** Fills the queue to the bound with one-off events that the test does not care about. */
    private void fillQueue() {
        while (eventThread.size() < BOUND) {
            listeners.acquireCancelled("filler", MS);
        }
        heard.ignore("cancelled filler");
    }

    private long linesContaining(String part) {
        return log.messagesContaining(part).size();
    }

    /** An event thread that runs only when the test says so, and can refuse tasks like a stopped one. */
    private static final class HandRunExecutor implements Executor {
        private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
        private boolean stopped;

        @Override
        public void execute(Runnable task) {
            if (stopped) {
                throw new RejectedExecutionException("stopped");
            }
            tasks.add(task);
        }

        int size() {
            return tasks.size();
        }

        void runAll() {
            while (!tasks.isEmpty()) {
                tasks.poll().run();
            }
        }

        void shutDown() {
            stopped = true;
        }

        void reopen() {
            stopped = false;
        }
    }

    /** Records what listeners hear, as short strings. */
    private static final class Recorder implements LockEventListener {
        final List<String> events = new ArrayList<>();
        private final List<String> ignored = new ArrayList<>();

        void ignore(String event) {
            ignored.add(event);
        }

        private void add(String event) {
            if (!ignored.contains(event)) {
                events.add(event);
            }
        }

        @Override
        public void onAcquired(String lockName, long fencingToken, Duration waited) {
            add("acquired " + lockName + " " + fencingToken);
        }

        @Override
        public void onHandoff(String lockName, long fencingToken, Duration sinceReleaseSeen) {
            add("handoff " + lockName + " " + fencingToken);
        }

        @Override
        public void onAcquireFailed(String lockName, LockException failure, Duration waited) {
            add("failed " + lockName);
        }

        @Override
        public void onAcquireCancelled(String lockName, Duration waited) {
            add("cancelled " + lockName);
        }

        @Override
        public void onWaitStarted(String lockName) {
            add("waitStarted " + lockName);
        }

        @Override
        public void onWaitEnded(String lockName, Duration waited) {
            add("waitEnded " + lockName);
        }

        @Override
        public void onReleased(String lockName, long fencingToken, Duration held) {
            add("released " + lockName + " " + fencingToken);
        }

        @Override
        public void onReleaseUnconfirmed(
                String lockName, long fencingToken, Duration held, ReleaseUnconfirmedException cause) {
            add("releaseUnconfirmed " + lockName + " " + fencingToken);
        }

        @Override
        public void onRenewed(String lockName, long fencingToken) {
            add("renewed " + lockName + " " + fencingToken);
        }

        @Override
        public void onRenewalFailed(String lockName, long fencingToken, Throwable cause) {
            add("renewalFailed " + lockName + " " + fencingToken);
        }

        @Override
        public void onLeaseUncertain(String lockName, long fencingToken, Duration validFor, Throwable cause) {
            add("uncertain " + lockName + " " + fencingToken);
        }

        @Override
        public void onLeaseReconfirmed(String lockName, long fencingToken) {
            add("reconfirmed " + lockName + " " + fencingToken);
        }

        @Override
        public void onLeaseLost(LeaseLoss loss) {
            add("lost " + loss.lockName() + " " + loss.fencingToken());
        }

        @Override
        public void onEventsDropped(long count) {
            add("dropped " + count);
        }
    }
}
