package io.leasehold.lock.internal;

import static io.leasehold.lock.internal.RenewalBatchSizer.BUDGET_MICROS;
import static io.leasehold.lock.internal.RenewalBatchSizer.MAX_BATCH;
import static io.leasehold.lock.internal.RenewalBatchSizer.MIN_BATCH;
import static io.leasehold.lock.internal.RenewalBatchSizer.START_BATCH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * How the renew batch follows the server's measured cost: readings are fed by hand, so every
 * expectation is exact arithmetic (no clock, no Redis).
 */
class RenewalBatchSizerTest {

    private final RenewalBatchSizer sizer = new RenewalBatchSizer();

    /** Feeds {@code calls} full-batch readings of {@code microsPerLease} each. */
    private void serverCosts(double microsPerLease, int calls) {
        for (int i = 0; i < calls; i++) {
            int leases = sizer.batchSize();
            sizer.record(leases, Math.max(1, Math.round(leases * microsPerLease)));
        }
    }

    @Test
    void shouldStartWithRedissonsHundredLeasesBeforeAnyReading() {
        assertThat(sizer.batchSize()).isEqualTo(START_BATCH).isEqualTo(100);
    }

    @Test
    void shouldSizeTheBatchSoThatTheMeasuredCostFillsTheBudget() {
        // When the server keeps costing 2 µs per lease
        serverCosts(2.0, 100);

        // Then a call carries what runs in the budget: 400 µs / 2 µs
        assertThat(sizer.batchSize()).isBetween(195, 200);
        assertThat(sizer.batchSize() * 2.0).isLessThanOrEqualTo(BUDGET_MICROS);
    }

    @Test
    void shouldShrinkTheVeryNextBatchWhenTheServerSlowsDown() {
        serverCosts(2.0, 100);

        // When one full call shows the server three times slower
        int leases = sizer.batchSize();
        sizer.record(leases, leases * 6L);

        // Then the next call fits the budget at the new cost already
        assertThat(sizer.batchSize()).isEqualTo((int) (BUDGET_MICROS / 6.0));
    }

    @Test
    void shouldRaiseTheEstimateAtMostFourfoldOnOneReading() {
        serverCosts(2.0, 100);
        double before = sizer.microsPerLease();

        // When one call ran for 20 ms, as when the server was descheduled in the middle of it
        sizer.record(sizer.batchSize(), 20_000);

        // Then the batch shrinks fourfold, not a hundredfold
        assertThat(sizer.microsPerLease()).isEqualTo(before * 4);
        assertThat(sizer.batchSize()).isGreaterThanOrEqualTo(45);
    }

    @Test
    void shouldGrowBackOverTensOfCallsWhenTheServerIsFastAgain() {
        serverCosts(8.0, 100); // 50 leases a call
        int slow = sizer.batchSize();

        // When the server costs 2 µs per lease again
        List<Integer> sizes = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            serverCosts(2.0, 1);
            sizes.add(sizer.batchSize());
        }

        // Then each call grows the batch a little, and it takes tens of calls to come back
        assertThat(slow).isEqualTo(50);
        assertThat(sizes.get(0)).isBetween(51, 56);
        assertThat(sizes).isSorted();
        assertThat(sizes.get(9)).isLessThan(150);
        assertThat(sizes.get(39)).isGreaterThanOrEqualTo(190);
    }

    @Test
    void shouldLetASmallCallMoveTheEstimateByItsShareOfABatchOnly() {
        // When a call of 5 leases (a twentieth of the batch) reads 40 µs per lease, its fixed cost spread thin
        sizer.record(5, 200);

        // Then the estimate moves a twentieth of the way: from 4 to 5.8 µs, not to 40
        assertThat(sizer.microsPerLease()).isCloseTo(4.0 + 36.0 / 20, within(1e-9));
        assertThat(sizer.batchSize()).isEqualTo(68);
    }

    @Test
    void shouldIgnoreAReadingOfNoTimeOrNoLeases() {
        serverCosts(2.0, 100);
        int batch = sizer.batchSize();

        // When servers whose clock stands still during a script answer 0 µs, many times
        for (int i = 0; i < 1_000; i++) {
            sizer.record(batch, 0);
            sizer.record(0, 500);
        }

        // Then nothing changed: a reading of no time never grows a batch
        assertThat(sizer.batchSize()).isEqualTo(batch);
    }

    @Test
    void shouldStayWithinItsBoundsWhateverTheReadings() {
        serverCosts(0.001, 1_000); // (1 µs per call: the least a reading can say)
        assertThat(sizer.batchSize()).isEqualTo(MAX_BATCH);

        serverCosts(10_000, 1_000);
        assertThat(sizer.batchSize()).isEqualTo(MIN_BATCH).isPositive();
    }

    @Test
    void shouldKeepAtLeastRedissonsBatchWhileALeaseCostsAtMostFourMicroseconds() {
        // A healthy server: costs per lease anywhere from 0.5 to 4 µs, call after call, in any order
        Random random = new Random(18);
        int smallest = Integer.MAX_VALUE;
        for (int i = 0; i < 10_000; i++) {
            int leases = 1 + random.nextInt(sizer.batchSize());
            sizer.record(leases, Math.max(1, Math.round(leases * (0.5 + 3.5 * random.nextDouble()))));
            smallest = Math.min(smallest, sizer.batchSize());
        }

        // Then no batch is smaller than 100 leases: n leases take at most n / 100 calls, as with Redisson
        assertThat(smallest).isGreaterThanOrEqualTo(START_BATCH);
    }
}
