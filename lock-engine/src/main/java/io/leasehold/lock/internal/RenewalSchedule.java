package io.leasehold.lock.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.function.ToIntFunction;

/**
 * When each auto-renewed lease of one client is to be renewed next, and which leases share a renew
 * call (G5).
 *
 * <p>A scheduled lease has a <em>due</em> time, by which its renewal must be sent, and an
 * <em>eligible</em> time, not after it, from which on it may ride along with others.
 * {@link #takeDue} takes every lease that is due and then, for each cluster slot, tops up the last
 * call of that slot with leases of the slot that are eligible, soonest eligible first, until it holds
 * a whole batch. So a lease is never renewed later than it is due, no call leaves room that a lease
 * ready to ride along could have taken, and leases acquired at different moments fill the calls that
 * are sent anyway: after one round they share their due times, and n leases of one slot cost about
 * n / batch calls per renewal period. Riding along never costs a call of its own, and never renews a
 * lease before its eligible time.
 *
 * <p>Costs, for n scheduled leases: {@link #schedule} and {@link #unschedule} O(log n) (indexed heaps:
 * no scan, and nothing left behind by a removal); {@link #nextDue} O(1); {@link #takeDue} O(log n) per
 * lease taken.
 *
 * <p>Not threadsafe: the {@link Renewer} calls it holding its lock.
 *
 * @param <L> the leases (the engine's {@link DefaultLease}), told apart by identity
 */
final class RenewalSchedule<L> {

    /** One lease's place in the schedule: in the due heap, and in its slot's eligible heap. */
    private static final class Entry<L> {
        final L lease;
        final int slot;
        final long dueAt;
        final long eligibleFrom;
        int dueIndex = -1;
        int eligibleIndex = -1;

        Entry(L lease, int slot, long dueAt, long eligibleFrom) {
            this.lease = lease;
            this.slot = slot;
            this.dueAt = dueAt;
            this.eligibleFrom = eligibleFrom;
        }
    }

    // Times are ticker readings: compared by their difference, which is safe across the ticker's overflow.
    private final Comparator<Entry<L>> byDueTime = (a, b) -> Long.compare(a.dueAt - b.dueAt, 0);
    private final Comparator<Entry<L>> byEligibleTime = (a, b) -> Long.compare(a.eligibleFrom - b.eligibleFrom, 0);
    private final IndexedHeap.Position<Entry<L>> dueIndex = new IndexedHeap.Position<>() {
        @Override
        public int get(Entry<L> entry) {
            return entry.dueIndex;
        }

        @Override
        public void set(Entry<L> entry, int index) {
            entry.dueIndex = index;
        }
    };
    private final IndexedHeap.Position<Entry<L>> eligibleIndex = new IndexedHeap.Position<>() {
        @Override
        public int get(Entry<L> entry) {
            return entry.eligibleIndex;
        }

        @Override
        public void set(Entry<L> entry, int index) {
            entry.eligibleIndex = index;
        }
    };

    private final ToIntFunction<L> slotOf;
    private final Map<L, Entry<L>> entries = new IdentityHashMap<>();
    private final IndexedHeap<Entry<L>> byDue = new IndexedHeap<>(byDueTime, dueIndex);
    /** Per cluster slot, that slot's entries by eligible time; a slot with none has no heap. */
    private final Map<Integer, IndexedHeap<Entry<L>>> eligibleBySlot = new HashMap<>();

    /** A schedule whose leases are batched by the cluster slot {@code slotOf} gives. */
    RenewalSchedule(ToIntFunction<L> slotOf) {
        this.slotOf = slotOf;
    }

    /**
     * Schedules {@code lease}, in its cluster slot, to be renewed by {@code dueAt}, and from
     * {@code eligibleFrom} on (not after {@code dueAt}) along with others; replaces its earlier place.
     */
    void schedule(L lease, long dueAt, long eligibleFrom) {
        unschedule(lease);
        Entry<L> entry =
                new Entry<>(lease, slotOf.applyAsInt(lease), dueAt, eligibleFrom - dueAt > 0 ? dueAt : eligibleFrom);
        entries.put(lease, entry);
        byDue.add(entry);
        eligibleBySlot
                .computeIfAbsent(entry.slot, slot -> new IndexedHeap<>(byEligibleTime, eligibleIndex))
                .add(entry);
    }

    /** Takes {@code lease} out of the schedule, if it is in it. */
    void unschedule(L lease) {
        Entry<L> entry = entries.get(lease);
        if (entry != null) {
            remove(entry);
        }
    }

    /** When {@code lease} is due, if it is scheduled. */
    OptionalLong dueAt(L lease) {
        Entry<L> entry = entries.get(lease);
        return entry == null ? OptionalLong.empty() : OptionalLong.of(entry.dueAt);
    }

    /** The earliest due time of all scheduled leases, if any. */
    OptionalLong nextDue() {
        Entry<L> first = byDue.peek();
        return first == null ? OptionalLong.empty() : OptionalLong.of(first.dueAt);
    }

    int size() {
        return entries.size();
    }

    void clear() {
        for (Entry<L> entry : List.copyOf(entries.values())) {
            remove(entry);
        }
    }

    /**
     * Takes out of the schedule every lease due at {@code now}, topped up per slot with eligible leases
     * of that slot up to a whole number of batches, and returns them as batches of at most
     * {@code maxBatch} leases, each of one slot, the leases of one slot spread evenly over its batches.
     */
    List<List<L>> takeDue(long now, int maxBatch) {
        Map<Integer, List<L>> dueBySlot = new LinkedHashMap<>();
        for (Entry<L> first = byDue.peek(); first != null && first.dueAt - now <= 0; first = byDue.peek()) {
            remove(first);
            dueBySlot.computeIfAbsent(first.slot, slot -> new ArrayList<>()).add(first.lease);
        }
        List<List<L>> batches = new ArrayList<>();
        dueBySlot.forEach((slot, taken) -> {
            int batchCount = (taken.size() + maxBatch - 1) / maxBatch;
            topUp(slot, taken, now, batchCount * maxBatch);
            split(taken, (taken.size() + maxBatch - 1) / maxBatch, batches);
        });
        return batches;
    }

    /** Adds eligible leases of {@code slot}, soonest eligible first, until {@code taken} holds {@code capacity}. */
    private void topUp(int slot, List<L> taken, long now, int capacity) {
        IndexedHeap<Entry<L>> eligible = eligibleBySlot.get(slot);
        while (eligible != null && taken.size() < capacity) {
            Entry<L> first = eligible.peek();
            if (first == null || first.eligibleFrom - now > 0) {
                return;
            }
            remove(first);
            taken.add(first.lease);
            eligible = eligibleBySlot.get(slot); // gone once its last entry was taken
        }
    }

    /** Splits {@code leases} into {@code count} batches whose sizes differ by at most one. */
    private static <L> void split(List<L> leases, int count, List<List<L>> into) {
        int from = 0;
        for (int i = 0; i < count; i++) {
            int to = from + (leases.size() - from) / (count - i);
            into.add(new ArrayList<>(leases.subList(from, to)));
            from = to;
        }
    }

    private void remove(Entry<L> entry) {
        entries.remove(entry.lease, entry);
        byDue.remove(entry);
        IndexedHeap<Entry<L>> eligible = eligibleBySlot.get(entry.slot);
        if (eligible != null && eligible.remove(entry) && eligible.isEmpty()) {
            eligibleBySlot.remove(entry.slot);
        }
    }
}
