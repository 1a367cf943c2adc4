package io.leasehold.lock.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The watchdog (G5): renews every auto-renewing lease of one client at a third of its lease, in
 * batched script calls grouped by cluster slot. A lease due within half its renewal interval rides
 * along with an earlier one, so leases taken around the same time fall into the same batches.
 * Renewal never extends a lease past its max-hold bound.
 *
 * <p>This class is threadsafe; its bookkeeping (and the leases' watchdog fields) is guarded by {@link #lock}.
 */
final class Renewer {

    /** Most leases in one renew call: keeps a single script run short on the Redis thread. */
    static final int MAX_BATCH = 128;

    private final Engine engine;
    final Object lock = new Object();
    private final Set<DefaultLease> leases = new LinkedHashSet<>();
    private @org.jspecify.annotations.Nullable ScheduledFuture<?> tick;
    private long tickAtNanos = Long.MAX_VALUE;

    Renewer(Engine engine) {
        this.engine = engine;
    }

    void add(DefaultLease lease) {
        synchronized (lock) {
            lease.nextRenewNanos = lease.acquiredNanos() + Validity.renewIntervalNanos(lease.leaseMs);
            leases.add(lease);
            rescheduleLocked();
        }
    }

    void remove(DefaultLease lease) {
        synchronized (lock) {
            leases.remove(lease);
        }
    }

    /** Leases scheduled for renewal right now. */
    int size() {
        synchronized (lock) {
            return leases.size();
        }
    }

    private void rescheduleLocked() {
        long next = Long.MAX_VALUE;
        for (DefaultLease lease : leases) {
            if (!lease.renewInFlight) {
                next = Math.min(next, lease.nextRenewNanos);
            }
        }
        if (next == Long.MAX_VALUE || next >= tickAtNanos) {
            return;
        }
        if (tick != null) {
            tick.cancel(false);
        }
        tickAtNanos = next;
        tick = engine.schedule(this::runTick, next - System.nanoTime());
    }

    private void runTick() {
        Map<Integer, List<DefaultLease>> dueBySlot = new HashMap<>();
        long now = System.nanoTime();
        synchronized (lock) {
            tick = null;
            tickAtNanos = Long.MAX_VALUE;
            for (DefaultLease lease : leases) {
                if (lease.renewInFlight || !lease.isHeld()) {
                    continue;
                }
                if (lease.nextRenewNanos <= now + Validity.renewIntervalNanos(lease.leaseMs) / 2) {
                    lease.renewInFlight = true;
                    dueBySlot.computeIfAbsent(lease.slot, s -> new ArrayList<>()).add(lease);
                }
            }
        }
        for (List<DefaultLease> slotLeases : dueBySlot.values()) {
            for (int from = 0; from < slotLeases.size(); from += MAX_BATCH) {
                renew(slotLeases.subList(from, Math.min(from + MAX_BATCH, slotLeases.size())));
            }
        }
        synchronized (lock) {
            rescheduleLocked();
        }
    }

    private void renew(List<DefaultLease> batch) {
        long sent = System.nanoTime();
        List<DefaultLease> renewing = new ArrayList<>(batch.size());
        List<Long> leaseMs = new ArrayList<>(batch.size());
        List<String> keys = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(batch.size() * 2);
        synchronized (lock) {
            for (DefaultLease lease : batch) {
                long ms = lease.leaseMs;
                if (lease.maxHoldDeadlineNanos != Long.MAX_VALUE) {
                    long holdLeftMs = TimeUnit.NANOSECONDS.toMillis(lease.maxHoldDeadlineNanos - sent);
                    if (holdLeftMs < ms) {
                        lease.holdBounded = true; // the last renewal: the lease ends at its max-hold bound
                        ms = holdLeftMs;
                    }
                }
                if (ms <= 0) {
                    lease.renewInFlight = false;
                    lease.nextRenewNanos = Long.MAX_VALUE;
                    continue;
                }
                renewing.add(lease);
                leaseMs.add(ms);
                keys.add(lease.lockKey);
                args.add(lease.owner);
                args.add(Long.toString(ms));
            }
        }
        if (renewing.isEmpty()) {
            return;
        }
        engine.call(EngineScripts.RENEW, keys, args).whenComplete((reply, error) -> {
            List<?> codes = null;
            Throwable failure = error == null ? null : DefaultLease.unwrap(error);
            if (failure == null) {
                try {
                    codes = Replies.asList(reply, "renew");
                    if (codes.size() != renewing.size()) {
                        throw Replies.unexpected(reply, "renew of " + renewing.size() + " leases");
                    }
                } catch (RuntimeException badReply) {
                    failure = badReply;
                }
            }
            for (int i = 0; i < renewing.size(); i++) {
                DefaultLease lease = renewing.get(i);
                if (failure != null) {
                    renewalFailed(lease, failure);
                } else {
                    renewalAnswered(lease, Replies.asLong(codes.get(i), "renew"), sent, leaseMs.get(i));
                }
            }
            synchronized (lock) {
                rescheduleLocked();
            }
        });
    }

    private void renewalAnswered(DefaultLease lease, long code, long sent, long ms) {
        if (code == 1) {
            synchronized (lock) {
                lease.renewInFlight = false;
                lease.lastRenewalFailure = null;
                if (!lease.holdBounded) {
                    lease.nextRenewNanos = sent + Validity.renewIntervalNanos(lease.leaseMs);
                } else {
                    lease.nextRenewNanos = Long.MAX_VALUE;
                }
            }
            if (lease.validated(sent, ms)) {
                engine.listeners.renewed(lease.name, lease.fencingToken());
            }
            return;
        }
        synchronized (lock) {
            lease.renewInFlight = false;
        }
        lease.declareLost(lease.goneReason(), null);
    }

    private void renewalFailed(DefaultLease lease, Throwable failure) {
        synchronized (lock) {
            lease.renewInFlight = false;
            lease.lastRenewalFailure = failure;
            lease.nextRenewNanos = System.nanoTime() + Validity.renewRetryNanos(lease.leaseMs);
        }
        if (lease.isHeld()) {
            engine.listeners.renewalFailed(lease.name, lease.fencingToken(), failure);
        }
    }

    /** Stops all renewal (client close). */
    void stop() {
        synchronized (lock) {
            leases.clear();
            if (tick != null) {
                tick.cancel(false);
                tick = null;
            }
            tickAtNanos = Long.MAX_VALUE;
        }
    }

}
