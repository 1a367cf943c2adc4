package io.leasehold.lock.internal;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import java.time.Duration;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The local wait queue ({@link WaitQueues}) with {@code waiters} acquisitions queued for one name.
 *
 * <p>The waiters are real: each was started as {@code acquireAsync} starts one, against a lock that
 * another client holds for a day in the in-memory backend, so each made its contended attempt, joined
 * the queue, and waits on its fallback timer (the holder's TTL, beyond any run). The queue's
 * subscription was made by the first waiter and stays, because the queue never empties.
 *
 * <ul>
 *   <li>{@link #headHandsOff}: the head leaves, which wakes the next waiter; the woken head checks that it
 *       is head and makes its attempt — on the engine's real path (command timer, futures, reply handling,
 *       re-armed fallback timer), answered "contended" by the in-memory backend on the calling thread,
 *       so no Redis round trip is in the figure. The old head then queues again at the tail, so the
 *       queue keeps its length and its subscription; the waiters stay waiting throughout.</li>
 *   <li>{@link #isHead}: the check every wake-up makes first.</li>
 *   <li>{@link #tailLeavesAndRejoins}: the last waiter leaves (as when its wait ends far back in the
 *       queue; the queue scans from the head to find it) and queues again.</li>
 * </ul>
 */
@State(Scope.Benchmark)
public class WaitQueueBenchmark extends EngineBenchmark {

    private static final String NAME = "orders:42";
    /** Longer than any run: no deadline, fallback or lease timer fires while measuring. */
    private static final Duration DAY = Duration.ofDays(1);

    /** Queue lengths: a few local waiters, and a crowd. At least 2, so that a leave never empties the queue. */
    @Param({"10", "1000"})
    public int waiters;

    private InMemoryLockBackend backend;
    private LockClient holderClient;
    private DefaultLockClient client;
    private WaitQueues queues;
    private Acquisition[] queued;
    /** Index in {@link #queued} of the waiter at the head now. */
    private int head;

    @Setup
    public void queueWaiters() {
        backend = new InMemoryLockBackend();
        // Each client on a node of its own, so that closing one leaves the store to the other (see close()).
        holderClient = LockClient.create(backend.newNode());
        Lease held = holderClient
                .lock(
                        NAME,
                        LockOptions.builder().leaseTime(DAY).autoRenew(false).build())
                .acquire(Duration.ofSeconds(5));
        client = (DefaultLockClient) LockClient.create(backend.newNode());
        queues = client.waitQueues();
        DefaultDistributedLock lock = (DefaultDistributedLock) client.lock(NAME);
        queued = new Acquisition[waiters];
        for (int i = 0; i < waiters; i++) {
            // As DefaultDistributedLock.acquireAsync starts one, keeping the acquisition to queue it by hand later.
            Acquisition waiter = new Acquisition(lock, DAY, false);
            client.acquisitionStarted(waiter);
            waiter.start();
            queued[i] = waiter;
        }
        // The in-memory backend answers on the calling thread: every waiter has queued by now, in order.
        if (!queues.isHead(NAME, queued[0]) || !held.isValid()) {
            throw new IllegalStateException("setup: the " + waiters + " waiters did not queue behind a held lock");
        }
        head = 0;
    }

    @TearDown
    public void close() {
        // The waiters first, so that the holder's release wakes nobody into taking the lock.
        client.close();
        holderClient.close();
        backend.close();
    }

    @Benchmark
    public void headHandsOff() {
        Acquisition leaving = queued[head];
        queues.leave(NAME, leaving); // wakes the next waiter, which attempts and is told "contended"
        queues.join(NAME, leaving, Long.MAX_VALUE); // back at the tail
        head = (head + 1) % waiters;
    }

    @Benchmark
    public boolean isHead() {
        return queues.isHead(NAME, queued[head]);
    }

    @Benchmark
    public void tailLeavesAndRejoins() {
        Acquisition last = queued[(head + waiters - 1) % waiters];
        queues.leave(NAME, last);
        queues.join(NAME, last, Long.MAX_VALUE);
    }
}
