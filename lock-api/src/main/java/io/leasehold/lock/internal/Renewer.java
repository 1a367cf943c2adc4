package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

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
    private EngineTimer.@Nullable Timeout tick;
    private long tickAtNanos;

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

    /**
     * The lease's validity may have dropped (an extend to a shorter time was sent): renew no later
     * than a third of what is left, so that it never runs out unrenewed. A renewal already in flight
     * does not help, since the extend may run after it.
     */
    void validityLowered(DefaultLease lease) {
        synchronized (lock) {
            if (!leases.contains(lease) || lease.holdBounded) {
                return;
            }
            lease.nextRenewNanos = Math.min(lease.nextRenewNanos, nextRenewalFor(lease));
            rescheduleLocked();
        }
    }

    /** A third of the validity left from now: the lease's lease time, or a shorter extend's, renewed at a third. */
    private long nextRenewalFor(DefaultLease lease) {
        return engine.now() + Math.max(0, lease.validityLeftNanos()) / 3;
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
        if (next == Long.MAX_VALUE || (tick != null && next - tickAtNanos >= 0)) {
            return;
        }
        if (tick != null) {
            tick.cancel();
        }
        tickAtNanos = next;
        tick = engine.timer.schedule(this::runTick, next - engine.now());
    }

    private void runTick() {
        Map<Integer, List<DefaultLease>> dueBySlot = new HashMap<>();
        long now = engine.now();
        synchronized (lock) {
            tick = null;
            for (DefaultLease lease : leases) {
                if (lease.renewInFlight || !lease.heldBeforeLossCheck()) {
                    // (a lease past its loss check, as after the process stalled, is the check's to end)
                    continue;
                }
                if (lease.nextRenewNanos - (now + Validity.renewIntervalNanos(lease.leaseMs) / 2) <= 0) {
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
        long sent = engine.now();
        List<DefaultLease> renewing = new ArrayList<>(batch.size());
        List<Long> sequences = new ArrayList<>(batch.size());
        List<String> keys = new ArrayList<>(batch.size());
        List<String> args = new ArrayList<>(batch.size() * 3);
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
                long seq = lease.renewalSent(sent, ms);
                renewing.add(lease);
                sequences.add(seq);
                keys.add(lease.lockKey);
                args.add(lease.owner);
                args.add(Long.toString(ms));
                args.add(Long.toString(seq));
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
                long code;
                try {
                    code = failure != null ? 0 : Replies.asLong(codes.get(i), "renew");
                } catch (RuntimeException badElement) {
                    renewalFailed(lease, sequences.get(i), badElement); // one bad element fails its lease only
                    continue;
                }
                if (failure != null) {
                    renewalFailed(lease, sequences.get(i), failure);
                } else {
                    renewalAnswered(lease, code, sent, sequences.get(i));
                }
            }
            synchronized (lock) {
                rescheduleLocked();
            }
        });
    }

    /**
     * Reply codes of renew.lua: 1 renewed, 2 superseded (an extend numbered after it ran first),
     * 0 gone, -1 another owner's, -2 not a Leasehold lock (a foreign value).
     */
    private void renewalAnswered(DefaultLease lease, long code, long sent, long seq) {
        if (code == 1 || code == DefaultLease.TTL_SUPERSEDED) {
            if (code == 1) {
                lease.renewalConfirmed(seq);
            } else {
                lease.renewalSuperseded(seq); // not a renewal, but proof the lock is still ours
            }
            synchronized (lock) {
                lease.renewInFlight = false;
                lease.lastRenewalFailure = null;
                // A third of the lease after this renewal was sent, or sooner if the validity now in force
                // is shorter (an extend to a shorter time sent meanwhile).
                lease.nextRenewNanos = lease.holdBounded ? Long.MAX_VALUE
                        : Math.min(sent + Validity.renewIntervalNanos(lease.leaseMs), nextRenewalFor(lease));
            }
            return;
        }
        synchronized (lock) {
            lease.renewInFlight = false;
        }
        lease.declareLost(code == 0 ? lease.goneReason() : LeaseLoss.Reason.STOLEN, null);
    }

    private void renewalFailed(DefaultLease lease, long seq, Throwable failure) {
        synchronized (lock) {
            lease.renewInFlight = false;
            lease.lastRenewalFailure = failure;
            lease.nextRenewNanos = engine.now() + Validity.renewRetryNanos(lease.leaseMs);
        }
        lease.renewalFailed(seq, failure);
    }

    /** Stops all renewal (client close). */
    void stop() {
        synchronized (lock) {
            leases.clear();
            if (tick != null) {
                tick.cancel();
                tick = null;
            }
        }
    }

}
