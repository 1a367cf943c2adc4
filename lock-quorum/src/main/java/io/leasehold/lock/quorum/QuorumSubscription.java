package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One subscription per member behind one {@link Subscription}: the listener hears every member's
 * messages on the channel (a release publishes on each member, so one release may be heard up to N
 * times: the engine takes a repeated {@code released} as one more wake-up, and takes no grant message
 * from a composed backend), and each member's re-subscription. Each member subscribes with its own
 * pub/sub mode (sharded or plain), as its scripts publish with it.
 *
 * <p>{@link #subscribe} completes once at least M members' subscriptions are active, and fails (undoing
 * those made) once more than N - M failed; a member whose subscription completes later is kept (or,
 * after {@link Subscription#unsubscribe()}, undone). Not yet built (step 1): a member whose subscribe
 * failed is not asked again while the subscription lasts (its messages are missed; the engine's
 * waiters still ask when the holder's TTL runs out).
 *
 * <p><b>Threads.</b> Never blocks; the listener is called on the members' delivery threads and must not
 * block. This class is threadsafe.
 */
final class QuorumSubscription implements Subscription {

    private final String channel;
    private final List<Subscription> active = new ArrayList<>();
    private boolean unsubscribed;
    private int failed;
    private final int size;
    private final int majority;
    private final CompletableFuture<Subscription> ready = new CompletableFuture<>();
    private final List<Throwable> failures = new ArrayList<>();

    private QuorumSubscription(String channel, int size, int majority) {
        this.channel = channel;
        this.size = size;
        this.majority = majority;
    }

    /** Subscribes {@code listener} to {@code channel} on every member; see the class doc. */
    static CompletableFuture<Subscription> subscribe(QuorumMembers members, String channel, MessageListener listener) {
        QuorumSubscription subscription = new QuorumSubscription(channel, members.size(), members.majority());
        List<CompletableFuture<Subscription>> calls = new ArrayList<>(members.size());
        for (int i = 0; i < members.size(); i++) {
            CompletableFuture<Subscription> call;
            try {
                call = members.get(i).subscribe(channel, listener);
            } catch (RuntimeException e) {
                call = CompletableFuture.failedFuture(e);
            }
            calls.add(call);
        }
        for (CompletableFuture<Subscription> call : calls) {
            call.whenComplete((made, failure) -> {
                if (failure != null) {
                    subscription.memberFailed(Tally.unwrap(failure));
                } else {
                    subscription.memberActive(made);
                }
            });
        }
        return subscription.ready;
    }

    private void memberActive(Subscription made) {
        boolean undo;
        boolean nowReady = false;
        synchronized (this) {
            undo = unsubscribed;
            if (!undo) {
                active.add(made);
                nowReady = active.size() == majority;
            }
        }
        if (undo) {
            made.unsubscribe();
        } else if (nowReady) {
            ready.complete(this);
        }
    }

    private void memberFailed(Throwable failure) {
        boolean give = false;
        List<Throwable> all;
        synchronized (this) {
            failed++;
            failures.add(failure);
            all = List.copyOf(failures);
            if (failed == size - majority + 1 && !ready.isDone()) {
                give = true;
            }
        }
        if (give) {
            QuorumUnavailableException e = new QuorumUnavailableException(
                    "could not subscribe to '" + channel + "' on a majority of the quorum: " + all.size() + " of "
                            + size + " members failed, " + majority + " needed",
                    true);
            all.forEach(e::addSuppressed);
            ready.completeExceptionally(e);
            unsubscribe();
        }
    }

    @Override
    public String channel() {
        return channel;
    }

    /** Unsubscribes every member's subscription, also those made later. Idempotent. */
    @Override
    public CompletableFuture<Void> unsubscribe() {
        List<Subscription> undo;
        synchronized (this) {
            if (unsubscribed) {
                return CompletableFuture.completedFuture(null);
            }
            unsubscribed = true;
            undo = List.copyOf(active);
            active.clear();
        }
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (Subscription s : undo) {
            try {
                done.add(s.unsubscribe().exceptionally(ignored -> null));
            } catch (RuntimeException ignored) {
                // one member's failure to unsubscribe must not keep the others subscribed
            }
        }
        return CompletableFuture.allOf(done.toArray(CompletableFuture[]::new));
    }
}
