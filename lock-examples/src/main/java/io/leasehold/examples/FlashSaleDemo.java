package io.leasehold.examples;

import io.leasehold.lock.micrometer.LeaseholdMetrics;
import io.leasehold.lock.testkit.redis.RedisFixtureException;
import io.leasehold.lock.testkit.redis.RedisServerBinary;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The flash-sale demo, the README's main command: why a distributed lock, and why its fencing
 * token. Runs the same sale without a lock (oversold) and with Leasehold (exact), then shows a
 * stalled holder's late write being refused by its token.
 *
 * <p>Backend: {@code --redis redis://host:port} uses that server; otherwise a local
 * {@code redis-server} (from {@code $LEASEHOLD_REDIS_SERVER} or {@code PATH}) is started on a free
 * port; without one the demo falls back to the in-memory backend and says so ({@code --in-memory}
 * asks for it).
 */
public final class FlashSaleDemo {

    private FlashSaleDemo() {}

    /** Everything the demo measured. */
    record Outcome(String backend, SaleResult withoutLock, SaleResult withLock, FencingScene.Outcome fencing) {

        /** The claims the demo makes about Leasehold, all true. */
        boolean lockedSaleExact() {
            return withLock.stockLeft() == 0
                    && withLock.confirmed() == withLock.stock()
                    && withLock.failures().isEmpty()
                    && withLock.tokensDistinct()
                    && !fencing.lateWriteAccepted();
        }
    }

    public static void main(String[] args) throws Exception {
        // The engine logs a lost lease through System.Logger (JUL here): one short line per record.
        System.setProperty("java.util.logging.SimpleFormatter.format", "  [log] %4$s %5$s%6$s%n");
        DemoOptions options;
        try {
            options = DemoOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Outcome outcome = run(options, System.out);
        System.exit(outcome.lockedSaleExact() ? 0 : 1);
    }

    static Outcome run(DemoOptions options, PrintStream out) throws Exception {
        long start = System.nanoTime();
        out.println("Leasehold flash-sale demo");
        // Every node's lock client reports to one Micrometer registry, as nodes' clients in one process would.
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        LeaseholdMetrics metrics = LeaseholdMetrics.of(registry);
        Outcome outcome;
        try (DemoBackend backend = chooseBackend(options)) {
            out.println("  backend: " + backend.description());
            List<Node> nodes = new ArrayList<>();
            for (int n = 1; n <= options.nodes(); n++) {
                nodes.add(backend.newNode("node-" + n, metrics));
            }
            out.printf(
                    "  sale: %d items, %d shoppers, %d nodes x %d workers (each node its own LockClient and connections)%n",
                    options.stock(), options.shoppers(), options.nodes(), options.workers());
            FlashSale sale = new FlashSale(nodes, options);

            out.println();
            out.printf(
                    "[1/3] without a lock: read stock, create the order (%d ms), write stock - 1%n",
                    FlashSale.ORDER_WORK.toMillis());
            SaleResult unlocked = sale.runWithoutLock();
            Report.unlocked(unlocked, out);

            out.println();
            out.printf(
                    "[2/3] with Leasehold: the same steps inside lock(\"%s\"), every stock access fenced by the lease's token%n",
                    FlashSale.LOCK_NAME);
            SaleResult locked = sale.runWithLock();
            Report.locked(locked, out);

            out.println();
            out.println("[3/3] fencing: a holder that stalls past its lease");
            FencingScene.Outcome fencing = FencingScene.play(nodes.get(0), nodes.get(1), out);

            outcome = new Outcome(backend.description(), unlocked, locked, fencing);
        }
        options.redisUri()
                .ifPresent(uri -> out.println("  deleted the demo's keys from " + uri
                        + " (the stock, its fence, the lock and its fencing counter)"));
        // After the clients closed: closing lets every queued event reach the listener, so the meters are final.
        out.println();
        MetersReport.print(registry, out);
        out.println();
        out.printf(
                "%s in %.1f s%n",
                outcome.lockedSaleExact() ? "Done" : "FAILED: the locked sale was not exact",
                (System.nanoTime() - start) / 1e9);
        return outcome;
    }

    /** {@code --in-memory}, else {@code --redis}, else a local redis-server, else the in-memory fallback. */
    static DemoBackend chooseBackend(DemoOptions options) {
        if (options.inMemory()) {
            return new InMemoryDemoBackend("--in-memory");
        }
        if (options.redisUri().isPresent()) {
            return RedisDemoBackend.existing(options.redisUri().get(), options.driver());
        }
        Optional<RedisServerBinary> binary;
        try {
            binary = RedisServerBinary.locate();
        } catch (RedisFixtureException e) {
            return new InMemoryDemoBackend(e.getMessage());
        }
        if (binary.isEmpty()) {
            return new InMemoryDemoBackend(
                    "no redis-server on PATH (nor $" + RedisServerBinary.ENV_VARIABLE + ") - falling back");
        }
        try {
            return RedisDemoBackend.startLocal(binary.get(), options.driver());
        } catch (RuntimeException e) {
            return new InMemoryDemoBackend(
                    "could not start " + binary.get().path() + " (" + e.getMessage() + ") - falling back");
        }
    }
}
