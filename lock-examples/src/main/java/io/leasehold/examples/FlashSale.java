package io.leasehold.examples;

import io.leasehold.lock.DistributedLock;
import io.leasehold.lock.Lease;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The workload: shoppers hit every node at once, and each node's workers handle one purchase at a
 * time: read the stock, take a moment to create the order, write the stock back one lower. Run it
 * without a lock and the read-modify-writes of different nodes overlap; run it under a Leasehold
 * lock and they cannot.
 */
final class FlashSale {

    static final String PRODUCT = "sku-42";
    static final String LOCK_NAME = "flash-sale:" + PRODUCT;
    /** Creating the order (payment, database row) between reading and writing the stock. */
    static final Duration ORDER_WORK = Duration.ofMillis(1);

    static final Duration WAIT = Duration.ofSeconds(30);

    private final List<Node> nodes;
    private final DemoOptions options;

    FlashSale(List<Node> nodes, DemoOptions options) {
        this.nodes = List.copyOf(nodes);
        this.options = options;
    }

    SaleResult runWithoutLock() {
        return run(false);
    }

    SaleResult runWithLock() {
        return run(true);
    }

    private SaleResult run(boolean locked) {
        nodes.get(0).stock().reset(options.stock());
        Counters counters = new Counters();
        List<Thread> workers = new ArrayList<>();
        long start = System.nanoTime();
        for (int n = 0; n < nodes.size(); n++) {
            Node node = nodes.get(n);
            Queue<Integer> shoppers = shoppersFor(n);
            DistributedLock lock = node.locks().lock(LOCK_NAME);
            int nodeIndex = n;
            for (int w = 1; w <= options.workers(); w++) {
                Runnable work = locked
                        ? () -> serveLocked(node, nodeIndex, lock, shoppers, counters)
                        : () -> serveUnlocked(node, shoppers, counters);
                Thread worker = new Thread(
                        () -> {
                            try {
                                work.run();
                            } catch (RuntimeException | Error e) {
                                counters.failures.add(e);
                            }
                        },
                        node.name() + "-worker-" + w);
                worker.setDaemon(true);
                workers.add(worker);
                worker.start();
            }
        }
        for (Thread worker : workers) {
            try {
                worker.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the sale ran", e);
            }
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        long stockLeft = nodes.get(0).stock().read();
        return new SaleResult(
                options.stock(),
                counters.requests.get(),
                counters.confirmed.get(),
                counters.soldOut.get(),
                counters.staleRejected.get(),
                stockLeft,
                elapsed,
                counters.waits.stream().mapToLong(Long::longValue).toArray(),
                List.copyOf(counters.acquisitions),
                List.copyOf(counters.failures));
    }

    /** This node's share of the shoppers. */
    private Queue<Integer> shoppersFor(int node) {
        Queue<Integer> queue = new ConcurrentLinkedQueue<>();
        for (int shopper = node; shopper < options.shoppers(); shopper += nodes.size()) {
            queue.add(shopper);
        }
        return queue;
    }

    /** The bug: check, then act, with the stock free to change in between. */
    private static void serveUnlocked(Node node, Queue<Integer> shoppers, Counters counters) {
        while (shoppers.poll() != null) {
            counters.requests.incrementAndGet();
            long stock = node.stock().read();
            if (stock <= 0) {
                counters.soldOut.incrementAndGet();
                continue;
            }
            createOrder();
            node.stock().write(stock - 1);
            counters.confirmed.incrementAndGet();
        }
    }

    /** The fix: the same steps under the lock, every access to the stock carrying the lease's fencing token. */
    private static void serveLocked(
            Node node, int nodeIndex, DistributedLock lock, Queue<Integer> shoppers, Counters counters) {
        while (shoppers.poll() != null) {
            counters.requests.incrementAndGet();
            long asked = System.nanoTime();
            try (Lease lease = lock.acquire(WAIT)) {
                counters.waits.add(System.nanoTime() - asked);
                counters.acquisitions.add(new SaleResult.Acquisition(lease.fencingToken(), nodeIndex));
                OptionalLong seen = node.stock().readFenced(lease.fencingToken());
                if (seen.isEmpty()) {
                    counters.staleRejected.incrementAndGet(); // our lease was overtaken: no sale
                    continue;
                }
                long stock = seen.getAsLong();
                if (stock <= 0) {
                    counters.soldOut.incrementAndGet();
                    continue;
                }
                createOrder();
                if (node.stock().writeFenced(stock - 1, lease.fencingToken())) {
                    counters.confirmed.incrementAndGet();
                } else {
                    counters.staleRejected.incrementAndGet(); // our lease was overtaken: no sale
                }
            }
        }
    }

    private static void createOrder() {
        LockSupport.parkNanos(ORDER_WORK.toNanos());
    }

    /** Shared by one run's workers. */
    private static final class Counters {
        final AtomicLong requests = new AtomicLong();
        final AtomicLong confirmed = new AtomicLong();
        final AtomicLong soldOut = new AtomicLong();
        final AtomicLong staleRejected = new AtomicLong();
        final Queue<Long> waits = new ConcurrentLinkedQueue<>();
        final Queue<SaleResult.Acquisition> acquisitions = new ConcurrentLinkedQueue<>();
        final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();
    }
}
