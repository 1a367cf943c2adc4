package io.leasehold.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Which leases a renewal round takes and how it batches them: every lease due, topped up with leases
 * of the same slot that may ride along, never a lease before it may, never two slots in one batch.
 */
class RenewalScheduleTest {

    /** A lease for the schedule: a name and a cluster slot. */
    private record Lease(String name, int slot) {}

    private final RenewalSchedule<Lease> schedule = new RenewalSchedule<>(Lease::slot);

    private static List<Lease> leases(String prefix, int count, int slot) {
        List<Lease> leases = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            leases.add(new Lease(prefix + i, slot));
        }
        return leases;
    }

    @Test
    void shouldTakeExactlyTheLeasesDueWhenNoneMayRideAlong() {
        Lease early = new Lease("early", 0);
        Lease due = new Lease("due", 0);
        Lease later = new Lease("later", 0);
        schedule.schedule(early, 50, 50);
        schedule.schedule(due, 100, 100);
        schedule.schedule(later, 101, 101);

        assertThat(schedule.takeDue(100, 10)).containsExactly(List.of(early, due));
        assertThat(schedule.nextDue()).hasValue(101);
        assertThat(schedule.size()).isEqualTo(1);
    }

    @Test
    void shouldTopUpTheLastBatchWithLeasesThatMayRideAlongSoonestFirst() {
        Lease due = new Lease("due", 0);
        schedule.schedule(due, 100, 50);
        List<Lease> waiting = leases("waiting-", 5, 0);
        for (int i = 0; i < waiting.size(); i++) {
            schedule.schedule(waiting.get(i), 200 + i, 90 + i); // eligible from 90..94
        }

        List<List<Lease>> batches = schedule.takeDue(100, 4);

        assertThat(batches).containsExactly(List.of(due, waiting.get(0), waiting.get(1), waiting.get(2)));
        assertThat(schedule.dueAt(waiting.get(3))).hasValue(203);
        assertThat(schedule.dueAt(waiting.get(0))).isEmpty();
    }

    @Test
    void shouldNotTakeALeaseAlongBeforeItMayRideAlong() {
        Lease due = new Lease("due", 0);
        Lease notYet = new Lease("not-yet", 0);
        schedule.schedule(due, 100, 50);
        schedule.schedule(notYet, 150, 101);

        assertThat(schedule.takeDue(100, 10)).containsExactly(List.of(due));
        assertThat(schedule.dueAt(notYet)).hasValue(150);
    }

    @Test
    void shouldNeverPutTwoSlotsInOneBatchNorTopUpASlotWithNothingDue() {
        Lease dueInOne = new Lease("due-1", 1);
        Lease dueInTwo = new Lease("due-2", 2);
        Lease eligibleInOne = new Lease("eligible-1", 1);
        Lease eligibleInThree = new Lease("eligible-3", 3);
        schedule.schedule(dueInOne, 100, 50);
        schedule.schedule(dueInTwo, 100, 50);
        schedule.schedule(eligibleInOne, 200, 60);
        schedule.schedule(eligibleInThree, 200, 60);

        List<List<Lease>> batches = schedule.takeDue(100, 10);

        assertThat(batches).containsExactlyInAnyOrder(List.of(dueInOne, eligibleInOne), List.of(dueInTwo));
        assertThat(schedule.dueAt(eligibleInThree))
                .as("slot 3 had nothing due: no call for it")
                .hasValue(200);
    }

    @Test
    void shouldSpreadTheLeasesOfOneSlotEvenlyOverTheFewestBatches() {
        List<Lease> due = leases("due-", 1_001, 0);
        due.forEach(lease -> schedule.schedule(lease, 100, 100));

        List<List<Lease>> batches = schedule.takeDue(100, 500);

        assertThat(batches).extracting(List::size).containsExactly(333, 334, 334);
        assertThat(batches.stream().flatMap(List::stream).collect(Collectors.toSet()))
                .isEqualTo(Set.copyOf(due));
    }

    @Test
    void shouldForgetAnUnscheduledLeaseEntirely() {
        List<Lease> many = leases("lease-", 1_000, 0);
        many.forEach(lease -> schedule.schedule(lease, 100, 50));
        many.forEach(schedule::unschedule);

        assertThat(schedule.size()).isZero();
        assertThat(schedule.nextDue()).isEmpty();
        assertThat(schedule.takeDue(1_000, 10)).isEmpty();
    }

    @Test
    void shouldKeepOnlyTheLatestPlaceOfALeaseScheduledAgain() {
        Lease lease = new Lease("lease", 0);
        schedule.schedule(lease, 500, 400);
        schedule.schedule(lease, 100, 100);

        assertThat(schedule.nextDue()).hasValue(100);
        assertThat(schedule.takeDue(100, 10)).containsExactly(List.of(lease));
        assertThat(schedule.takeDue(500, 10)).isEmpty();
    }

    @Test
    void shouldAgreeWithAPlainModelOverRandomSchedulesRemovalsAndRounds() {
        Random random = new Random(42);
        Map<Lease, long[]> model = new HashMap<>(); // lease -> {due, eligibleFrom}
        List<Lease> all = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            all.add(new Lease("lease-" + i, random.nextInt(4)));
        }
        long now = 0;
        long distinct = 0;
        for (int step = 0; step < 20_000; step++) {
            Lease lease = all.get(random.nextInt(all.size()));
            int action = random.nextInt(10);
            if (action < 6) {
                // Eligible times all differ (their last six digits count up), so "soonest first" has one answer
                long eligibleFrom = now + (random.nextInt(1_000) - 300) * 1_000_000L + ++distinct;
                long due = eligibleFrom + random.nextInt(600) * 1_000_000L;
                schedule.schedule(lease, due, eligibleFrom);
                model.put(lease, new long[] {due, eligibleFrom});
            } else if (action < 8) {
                schedule.unschedule(lease);
                model.remove(lease);
            } else {
                now += random.nextInt(300) * 1_000_000L;
                int maxBatch = 1 + random.nextInt(5);
                List<List<Lease>> batches = schedule.takeDue(now, maxBatch);
                assertThat(flatSet(batches)).isEqualTo(expectedTaken(model, now, maxBatch));
                batches.forEach(batch -> {
                    assertThat(batch.size()).isBetween(1, maxBatch);
                    assertThat(batch.stream().map(Lease::slot).distinct()).hasSize(1);
                });
                flatSet(batches).forEach(model::remove);
            }
            assertThat(schedule.size()).isEqualTo(model.size());
            assertThat(schedule.nextDue().isPresent() ? schedule.nextDue().getAsLong() : null)
                    .isEqualTo(model.values().stream()
                            .map(times -> times[0])
                            .min(Long::compare)
                            .orElse(null));
        }
    }

    /** The plain model of {@link RenewalSchedule#takeDue}: due leases, then per slot the soonest eligible up to whole batches. */
    private static Set<Lease> expectedTaken(Map<Lease, long[]> model, long now, int maxBatch) {
        Set<Lease> taken = new HashSet<>();
        Map<Integer, Long> dueCount = model.entrySet().stream()
                .filter(e -> e.getValue()[0] <= now)
                .collect(Collectors.groupingBy(e -> e.getKey().slot(), Collectors.counting()));
        dueCount.forEach((slot, count) -> {
            long capacity = (count + maxBatch - 1) / maxBatch * maxBatch;
            model.entrySet().stream()
                    .filter(e -> e.getKey().slot() == slot && e.getValue()[0] <= now)
                    .forEach(e -> taken.add(e.getKey()));
            model.entrySet().stream()
                    .filter(e -> e.getKey().slot() == slot && e.getValue()[0] > now && e.getValue()[1] <= now)
                    .sorted(Comparator.comparingLong(e -> e.getValue()[1]))
                    .limit(capacity - count)
                    .forEach(e -> taken.add(e.getKey()));
        });
        return taken;
    }

    private static Set<Lease> flatSet(List<List<Lease>> batches) {
        return batches.stream().flatMap(List::stream).collect(Collectors.toSet());
    }
}
