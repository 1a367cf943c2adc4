package io.leasehold.lock.micrometer;

import static io.leasehold.lock.micrometer.LeaseholdMeters.TAG_LOCK_GROUP;
import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.testkit.LockBackendFixture;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link LeaseholdMetrics} records for real lock traffic ({@link MetricsTraffic}), asserted by
 * meter name, tags and count; run on the in-memory backend and on real Redis.
 */
abstract class LeaseholdMetricsTestBase {

    private LockBackendFixture fixture;
    private SimpleMeterRegistry registry;
    private MetricsTraffic traffic;

    protected abstract LockBackendFixture createFixture();

    @BeforeEach
    void start() {
        fixture = createFixture();
        registry = new SimpleMeterRegistry();
        traffic = new MetricsTraffic(fixture, registry);
    }

    @AfterEach
    void stop() throws Exception {
        traffic.close();
        fixture.close();
    }

    @Test
    void shouldTimeAcquisitionsByOutcome() throws Exception {
        traffic.uncontended("orders:1");
        traffic.contended("orders:2");
        traffic.uncertainThenBack("reports:1");

        MetricsTraffic.await("every outcome recorded", () -> traffic.acquireCount("orders", "cancelled") == 1);
        assertThat(traffic.acquireCount("orders", LeaseholdMeters.OUTCOME_ACQUIRED))
                .isEqualTo(3); // 1 + holder + waiter
        assertThat(traffic.acquireCount("orders", LeaseholdMeters.OUTCOME_TIMEOUT))
                .isEqualTo(1);
        assertThat(traffic.acquireCount("orders", LeaseholdMeters.OUTCOME_CANCELLED))
                .isEqualTo(1);
        assertThat(traffic.acquireCount("reports", LeaseholdMeters.OUTCOME_ERROR))
                .isEqualTo(1);
        assertThat(traffic.acquireCount("reports", LeaseholdMeters.OUTCOME_ACQUIRED))
                .isEqualTo(1);
    }

    @Test
    void shouldRecordHoldTimesHandoffsAndGaugesThatReturnToZero() throws Exception {
        traffic.contended("orders:3");

        MetricsTraffic.await("both holds recorded", () -> holdCount("orders", LeaseholdMeters.ENDING_RELEASED) == 2);
        assertThat(traffic.timerCount(LeaseholdMeters.HANDOFF, "orders")).isEqualTo(1);
        assertThat(traffic.gauge(LeaseholdMeters.HELD, "orders")).isZero();
        assertThat(traffic.gauge(LeaseholdMeters.WAITERS, "orders")).isZero();
        assertThat(traffic.gauge(LeaseholdMeters.UNCERTAIN, "orders")).isZero();
    }

    @Test
    void shouldCountALostLeaseByReasonWithZeroSeriesForTheOtherReasons() throws Exception {
        traffic.lost("payments:1");

        MetricsTraffic.await("the lost hold recorded", () -> holdCount("payments", LeaseholdMeters.ENDING_LOST) == 1);
        List<String> lostSeries =
                registry.find(LeaseholdMeters.LOST).tag(TAG_LOCK_GROUP, "payments").counters().stream()
                        .map(c -> c.getId().getTag(LeaseholdMeters.TAG_REASON) + "=" + (long) c.count())
                        .sorted()
                        .collect(Collectors.toList());
        assertThat(lostSeries)
                .containsExactly(
                        "BACKEND_UNAVAILABLE=0", "CLIENT_CLOSED=0", "EXPIRED=0", "MAX_HOLD_EXCEEDED=0", "STOLEN=1");
        assertThat(traffic.gauge(LeaseholdMeters.HELD, "payments")).isZero();
    }

    @Test
    void shouldShowAnUncertainPeriodAndCountRenewalsByResult() throws Exception {
        traffic.uncertainThenBack("reports:2");

        double failed = registry.get(LeaseholdMeters.RENEWALS)
                .tags(TAG_LOCK_GROUP, "reports", LeaseholdMeters.TAG_RESULT, LeaseholdMeters.RESULT_FAILED)
                .counter()
                .count();
        assertThat(failed).isGreaterThanOrEqualTo(1);
        MetricsTraffic.await(
                "a renewal recorded",
                () -> registry
                                .find(LeaseholdMeters.RENEWALS)
                                .tags(
                                        TAG_LOCK_GROUP,
                                        "reports",
                                        LeaseholdMeters.TAG_RESULT,
                                        LeaseholdMeters.RESULT_RENEWED)
                                .counters()
                                .stream()
                                .mapToDouble(c -> c.count())
                                .sum()
                        >= 1);
        assertThat(traffic.gauge(LeaseholdMeters.UNCERTAIN, "reports")).isZero();
        assertThat(registry.find(LeaseholdMeters.LOST)
                        .tag(TAG_LOCK_GROUP, "reports")
                        .counters())
                .allSatisfy(
                        c -> assertThat(c.count()).as("losses of %s", c.getId()).isZero());
    }

    @Test
    void shouldCountReleasesDuringAnOutageAsUnconfirmedAndNoLongerAsHeldOrUncertain() throws Exception {
        traffic.releasedDuringOutage("audits:1");

        MetricsTraffic.await(
                "both holds recorded as released, unconfirmed",
                () -> holdCount("audits", LeaseholdMeters.ENDING_RELEASE_UNCONFIRMED) == 2);
        assertThat(holdCount("audits", LeaseholdMeters.ENDING_RELEASED)).isZero();
        assertThat(traffic.gauge(LeaseholdMeters.HELD, "audits")).isZero();
        assertThat(traffic.gauge(LeaseholdMeters.UNCERTAIN, "audits")).isZero();
        assertThat(registry.find(LeaseholdMeters.LOST)
                        .tag(TAG_LOCK_GROUP, "audits")
                        .counters())
                .allSatisfy(
                        c -> assertThat(c.count()).as("losses of %s", c.getId()).isZero());
    }

    @Test
    void shouldDescribeEveryMeterAndTagItWithTheLockGroupOnly() throws Exception {
        traffic.uncontended("orders:4");
        traffic.lost("payments:2");

        MetricsTraffic.await("the loss recorded", () -> holdCount("payments", LeaseholdMeters.ENDING_LOST) == 1);
        assertThat(registry.getMeters()).isNotEmpty().allSatisfy(meter -> {
            Meter.Id id = meter.getId();
            assertThat(id.getName()).startsWith(LeaseholdMeters.PREFIX + ".");
            assertThat(id.getDescription()).as("description of %s", id).isNotBlank();
            assertThat(id.getTag(TAG_LOCK_GROUP)).as("group of %s", id).isIn("orders", "payments");
        });
    }

    private long holdCount(String group, String ending) {
        var timer = registry.find(LeaseholdMeters.HOLD)
                .tags(TAG_LOCK_GROUP, group, LeaseholdMeters.TAG_ENDING, ending)
                .timer();
        return timer == null ? 0 : timer.count();
    }
}
