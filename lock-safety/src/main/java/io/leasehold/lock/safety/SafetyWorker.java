package io.leasehold.lock.safety;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import io.leasehold.lock.LockBackendException;
import io.leasehold.lock.LockException;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.LockTimeoutException;
import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.AcquireAttempt;
import io.leasehold.lock.history.AcquireOutcome;
import io.leasehold.lock.history.HistoryClock;
import io.leasehold.lock.history.HistoryWriter;
import io.leasehold.lock.history.LossSignalListener;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.SectionEnding;
import io.leasehold.lock.history.fencing.FencedAccess;
import io.leasehold.lock.history.fencing.FencedResource;
import io.leasehold.lock.history.fencing.FencedResourceException;
import io.leasehold.lock.testkit.redis.RedisEndpoint;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One simulated application node of the safety suite, run as a JVM process of its own: it contends
 * for a few locks with one driver and, inside each section, reads the lock's fenced counter with the
 * lease's token, pauses a little, and writes the value + 1 with the same token. Every acquire, section,
 * access and loss signal goes to its history file (see {@link io.leasehold.lock.history}).
 *
 * <p>It does its accesses whatever the lease's state, as a holder paused or cut off at the wrong moment
 * would: the resource's fencing is what must stop a stale holder, and the checker judges it.
 *
 * <p>It runs {@link WorkerArgs#threads()} contending threads on one client (with more than one, a
 * release may hand the lock to a local waiter: a handoff). It talks to the runner over its standard
 * streams: it prints {@code IN <lock> <token> <waiters>} once its read was answered (it then pauses
 * before the write: the moment a fault hits a holder), {@code RELEASING <lock> <token> <waiters>} just
 * before the release ({@code waiters}: how many of its threads wait for that lock then; more than 0,
 * the release is likely a handoff) and {@code OUT <lock> <token>} after the release; it stops after the current section when a line
 * {@code STOP} arrives on its standard input (or the input ends), and prints {@code DONE}.
 */
public final class SafetyWorker {

    private final WorkerArgs args;
    private final HistoryWriter history;
    private final Map<String, FencedResource> resources = new HashMap<>();
    /** Per lock, how many of this worker's threads are inside an acquire of it (local waiters). */
    private final Map<String, AtomicInteger> waiting = new HashMap<>();

    private volatile boolean stopping;

    private SafetyWorker(WorkerArgs args, HistoryWriter history) {
        this.args = args;
        this.history = history;
    }

    public static void main(String[] argv) throws Exception {
        WorkerArgs args = WorkerArgs.parse(argv);
        try (HistoryWriter history = HistoryWriter.open(args.history(), args.process())) {
            new SafetyWorker(args, history).run();
        }
        say("DONE");
        // Lettuce's and Jedis's non-daemon threads must not keep a finished worker alive.
        System.exit(0);
    }

    private void run() throws Exception {
        watchStdin();
        history.processStarted();
        RedisEndpoint resourceServer = new RedisEndpoint(args.resourceHost(), args.resourcePort());
        for (String lock : args.locks()) {
            resources.put(lock, FencedResource.on(resourceServer, args.resourceName(lock)));
        }
        LockOptions options = LockOptions.builder().leaseTime(args.lease()).build();
        try (LockClients.Opened client =
                LockClients.open(args.driver(), args.lockUri(), new LossSignalListener(history))) {
            Map<String, DistributedLock> locks = new HashMap<>();
            args.locks().forEach(name -> {
                locks.put(
                        name,
                        args.fair()
                                ? client.locks().fairLock(name, options)
                                : client.locks().lock(name, options));
                waiting.put(name, new AtomicInteger());
            });
            List<Thread> threads = new ArrayList<>();
            List<Throwable> failures = new CopyOnWriteArrayList<>();
            for (int t = 0; t < args.threads(); t++) {
                Thread thread = new Thread(
                        () -> {
                            try {
                                contend(locks);
                            } catch (Throwable e) {
                                failures.add(e);
                            }
                        },
                        "safety-worker-" + t);
                thread.start();
                threads.add(thread);
            }
            for (Thread thread : threads) {
                thread.join();
            }
            if (!failures.isEmpty()) {
                throw new IllegalStateException("a contending thread failed", failures.get(0));
            }
            history.processEnded();
        } finally {
            resources.values().forEach(FencedResource::close);
        }
    }

    /**
     * One contending thread's loop. The locks in turn, from a random one: a fault aimed at one lock's
     * holder (SIGSTOP, a partition) must see another worker ask for that lock within a section or two.
     * Picked at random, every worker may keep picking the other lock for the whole fault (seen: a 4 s
     * SIGSTOP during which nobody asked for the frozen holder's lock).
     */
    private void contend(Map<String, DistributedLock> locks) throws InterruptedException {
        int next = ThreadLocalRandom.current().nextInt(args.locks().size());
        while (!stopping) {
            String name = args.locks().get(next);
            next = (next + 1) % args.locks().size();
            section(name, locks.get(name));
            Thread.sleep(ThreadLocalRandom.current().nextInt(20));
        }
    }

    private void section(String name, DistributedLock lock) throws InterruptedException {
        long start = HistoryClock.nowMicros();
        Lease lease;
        AtomicInteger waiters = waiting.get(name);
        waiters.incrementAndGet();
        try {
            lease = lock.acquire(args.acquireWait());
        } catch (LockTimeoutException | LockBackendException e) {
            AcquireOutcome outcome = e instanceof LockTimeoutException ? AcquireOutcome.TIMEOUT : AcquireOutcome.ERROR;
            history.write(AcquireAttempt.failed(
                    args.process(), name, start, HistoryClock.nowMicros(), outcome, e.toString()));
            System.err.println(args.process() + " acquire of " + name + " failed: " + e);
            return;
        } finally {
            waiters.decrementAndGet();
        }
        long token = lease.fencingToken();
        history.write(AcquireAttempt.acquired(args.process(), name, start, HistoryClock.nowMicros(), token));
        lease.lost().thenAccept(history::loss);
        history.sectionStarted(name, token);
        FencedResource resource = resources.get(name);
        FencedAccess read = access(name, resource, AccessOp.READ, token, 0);
        say("IN " + name + " " + token + " " + waiters.get());
        long holdMicros = ThreadLocalRandom.current()
                .nextLong(args.minHold().toNanos() / 1000, args.maxHold().toNanos() / 1000 + 1);
        sleepMicros(holdMicros);
        if (read != null && read.accepted()) {
            access(name, resource, AccessOp.WRITE, token, read.value() + 1);
        }
        long end = HistoryClock.nowMicros();
        SectionEnding ending;
        // How many threads of this worker wait for the lock now: more than 0, the release is a handoff.
        say("RELEASING " + name + " " + token + " " + waiters.get());
        try {
            ending = lease.release() ? SectionEnding.RELEASED : SectionEnding.NOT_HELD;
        } catch (LockException e) {
            ending = SectionEnding.RELEASE_FAILED;
        }
        history.sectionEnded(name, token, end, ending);
        say("OUT " + name + " " + token);
    }

    /** One fenced access, logged; {@code null} when its outcome is unknown (logged as such). */
    private FencedAccess access(String lock, FencedResource resource, AccessOp op, long token, long value) {
        long start = HistoryClock.nowMicros();
        try {
            FencedAccess access = op == AccessOp.READ ? resource.read(token) : resource.write(token, value);
            history.write(access.toHistory(args.process(), lock, start, HistoryClock.nowMicros()));
            return access;
        } catch (FencedResourceException e) {
            history.write(new ResourceAccess(
                    args.process(),
                    lock,
                    resource.name(),
                    op,
                    token,
                    AccessOutcome.UNKNOWN,
                    op == AccessOp.WRITE ? value : null,
                    null,
                    start,
                    HistoryClock.nowMicros(),
                    e.toString()));
            return null;
        }
    }

    /** Sleeps by the wall clock the history uses, so that a SIGSTOP longer than the hold ends it at once on resume. */
    private static void sleepMicros(long micros) throws InterruptedException {
        long until = HistoryClock.nowMicros() + micros;
        for (long left = micros; left > 0; left = until - HistoryClock.nowMicros()) {
            Thread.sleep(Math.max(1, left / 1000));
        }
    }

    private void watchStdin() {
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            if (line.trim().equals("STOP")) {
                                break;
                            }
                        }
                    } catch (java.io.IOException e) {
                        // The runner is gone: stop as if told.
                    }
                    stopping = true;
                },
                "safety-worker-stdin");
        reader.setDaemon(true);
        reader.start();
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
