package io.leasehold.examples;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockOptions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Why the fencing token matters: a holder stalls (a long GC pause, say) past its lease, another
 * node takes the lock and sells the last item, and the stalled one wakes up and tries to sell it
 * again. The lock cannot stop that late write, but the store can, because it carries an older
 * token. Meanwhile the stalled holder's {@link Lease#lost()} told it what happened.
 */
final class FencingScene {

    static final Duration LEASE = Duration.ofMillis(300);
    private static final Duration BOUND = Duration.ofSeconds(10);

    /**
     * What happened.
     *
     * @param staleToken   the stalled holder's token
     * @param newToken     the token of the node that took over
     * @param loss         the stalled holder's loss signal
     * @param lateWriteAccepted whether the store took the stalled holder's write (it must not)
     */
    record Outcome(long staleToken, long newToken, LeaseLoss loss, boolean lateWriteAccepted) {
    }

    private FencingScene() {
    }

    static Outcome play(Node first, Node second, PrintStream out) throws Exception {
        LockOptions shortLease = LockOptions.builder().leaseTime(LEASE).autoRenew(false).build();
        first.stock().reset(1);
        long start = System.nanoTime();

        Lease stalled = first.locks().lock(FlashSale.LOCK_NAME, shortLease).acquire(BOUND);
        long stockSeen = first.stock().read();
        out.printf("  %s takes the lock (token %d, %d ms lease, no auto-renew), reads stock %d, then stalls%n",
                first.name(), stalled.fencingToken(), LEASE.toMillis(), stockSeen);

        CompletableFuture<Long> takeover = CompletableFuture.supplyAsync(() -> {
            try (Lease lease = second.locks().lock(FlashSale.LOCK_NAME).acquire(BOUND)) {
                long stock = second.stock().read();
                second.stock().writeFenced(stock - 1, lease.fencingToken());
                return lease.fencingToken();
            }
        });
        long newToken = takeover.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        out.printf("  %s gets the lock once that lease runs out (token %d, after %d ms) and sells the last item%n",
                second.name(), newToken, millisSince(start));

        // The stall ends. A careful holder checks its lease first; this one only has the token.
        LeaseLoss loss = awaitLoss(stalled);
        out.printf("  %s wakes up; its lease.lost() had completed: %s%n", first.name(), loss.reason());
        boolean accepted = first.stock().writeFenced(stockSeen - 1, stalled.fencingToken());
        out.printf("  %s writes stock %d with token %d: %s%n", first.name(), stockSeen - 1, stalled.fencingToken(),
                accepted ? "ACCEPTED (the item was sold twice!)"
                        : "REJECTED by the store, which has seen token " + first.stock().highestTokenSeen());
        stalled.close(); // a no-op on a lost lease: it never deletes the new holder's lock
        return new Outcome(stalled.fencingToken(), newToken, loss, accepted);
    }

    private static LeaseLoss awaitLoss(Lease lease) throws InterruptedException, ExecutionException {
        try {
            return lease.lost().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("lease " + lease.fencingToken() + " was not signalled lost within " + BOUND, e);
        }
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
