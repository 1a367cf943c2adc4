package io.leasehold.examples;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockOptions;
import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Why the fencing token matters, and why the store must check it on reads too: a holder stalls (a
 * long GC pause, say) past its lease; another node takes the lock and reads the last item; the
 * stalled one wakes up and tries to write its stale sale before the new holder has written. The lock
 * cannot stop that late write, but the store can: it saw the newer token on the new holder's read.
 * (A store that checked tokens only on writes would have taken it, and the new holder's write, built
 * on its read, would then have sold the item a second time.) Meanwhile the stalled holder's
 * {@link Lease#lost()} told it what happened.
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
    record Outcome(long staleToken, long newToken, LeaseLoss loss, boolean lateWriteAccepted) {}

    private FencingScene() {}

    static Outcome play(Node first, Node second, PrintStream out) throws Exception {
        LockOptions shortLease =
                LockOptions.builder().leaseTime(LEASE).autoRenew(false).build();
        first.stock().reset(1);
        long start = System.nanoTime();

        Lease stalled = first.locks().lock(FlashSale.LOCK_NAME, shortLease).acquire(BOUND);
        long stockSeen = first.stock().readFenced(stalled.fencingToken()).orElseThrow();
        out.printf(
                "  %s takes the lock (token %d, %d ms lease, no auto-renew), reads stock %d, then stalls%n",
                first.name(), stalled.fencingToken(), LEASE.toMillis(), stockSeen);

        CountDownLatch staleWriteTried = new CountDownLatch(1);
        CompletableFuture<Lease> newHolder = new CompletableFuture<>();
        CompletableFuture<Boolean> takeover = CompletableFuture.supplyAsync(() -> {
            try (Lease lease = second.locks().lock(FlashSale.LOCK_NAME).acquire(BOUND)) {
                long stock = second.stock().readFenced(lease.fencingToken()).orElseThrow();
                newHolder.complete(lease);
                awaitQuietly(staleWriteTried); // still creating the order when the stalled node wakes
                return second.stock().writeFenced(stock - 1, lease.fencingToken());
            }
        });
        long newToken = newHolder.get(BOUND.toSeconds(), TimeUnit.SECONDS).fencingToken();
        out.printf(
                "  %s gets the lock once that lease runs out (token %d, after %d ms), reads stock 1, creates the order%n",
                second.name(), newToken, millisSince(start));

        // The stall ends. A careful holder checks its lease first; this one only has the token.
        LeaseLoss loss = awaitLoss(stalled);
        out.printf("  %s wakes up; its lease.lost() had completed: %s%n", first.name(), loss.reason());
        boolean accepted = first.stock().writeFenced(stockSeen - 1, stalled.fencingToken());
        out.printf(
                "  %s writes stock %d with token %d: %s%n",
                first.name(),
                stockSeen - 1,
                stalled.fencingToken(),
                accepted
                        ? "ACCEPTED (the item was sold twice!)"
                        : "REJECTED by the store, which has seen token "
                                + first.stock().highestTokenSeen() + " on " + second.name()
                                + "'s read (a store fencing only writes would have taken it)");
        staleWriteTried.countDown();
        boolean sold = takeover.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        out.printf(
                "  %s writes stock %d with token %d: %s%n",
                second.name(),
                stockSeen - 1,
                newToken,
                sold ? "accepted: the last item is sold once" : "REJECTED (unexpected)");
        stalled.close(); // a no-op on a lost lease: it never deletes the new holder's lock
        return new Outcome(stalled.fencingToken(), newToken, loss, accepted);
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            if (!latch.await(BOUND.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the stalled node never tried its write within " + BOUND);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the stalled node", e);
        }
    }

    private static LeaseLoss awaitLoss(Lease lease) throws InterruptedException, ExecutionException {
        try {
            return lease.lost().get(BOUND.toSeconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(
                    "lease " + lease.fencingToken() + " was not signalled lost within " + BOUND, e);
        }
    }

    private static long millisSince(long startNanos) {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }
}
