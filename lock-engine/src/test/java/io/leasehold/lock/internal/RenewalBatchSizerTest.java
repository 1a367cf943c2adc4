package io.leasehold.lock.internal;

import static io.leasehold.lock.internal.RenewalBatchSizer.BUDGET_MICROS;
import static io.leasehold.lock.internal.RenewalBatchSizer.MAX_BATCH;
import static io.leasehold.lock.internal.RenewalBatchSizer.MIN_BATCH;
import static io.leasehold.lock.internal.RenewalBatchSizer.START_BATCH;
import static io.leasehold.lock.internal.RenewalBatchSizer.WINDOW;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * How the renew batch follows the server's measured cost: readings and rounds are fed by hand, so
 * every expectation is exact arithmetic (no clock, no Redis).
 */
class RenewalBatchSizerTest {

    private final RenewalBatchSizer sizer = new RenewalBatchSizer();

    /** Feeds {@code calls} readings of calls of 100 leases costing {@code microsPerLease} each. */
    private void serverCosts(double microsPerLease, int calls) {
        for (int i = 0; i < calls; i++) {
            sizer.record(100, Math.max(1, Math.round(100 * microsPerLease)));
        }
    }

    /** The batch sizes of the next {@code count} rounds. */
    private List<Integer> rounds(int count) {
        List<Integer> sizes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sizes.add(sizer.nextBatchSize());
        }
        return sizes;
    }

    @Test
    void shouldStartWithRedissonsHundredLeasesBeforeAnyReading() {
        assertThat(rounds(3)).containsExactly(START_BATCH, START_BATCH, START_BATCH);
        assertThat(START_BATCH).isEqualTo(100);
    }

    @Test
    void shouldGrowToWhatTheMeasuredCostFitsInTheBudgetByAQuarterARound() {
        // When the server costs 2 µs per lease
        serverCosts(2.0, WINDOW);

        // Then the rounds grow by a quarter each up to 400 µs / 2 µs
        assertThat(rounds(6)).containsExactly(125, 157, 197, 200, 200, 200);
    }

    @Test
    void shouldShrinkTheVeryNextRoundWhenMostOfTheLatestCallsShowASlowerServer() {
        serverCosts(2.0, WINDOW);
        rounds(5);

        // When five calls of the last nine (a majority) show the server three times slower
        serverCosts(6.0, 5);

        // Then the next round fits the budget at the new cost already
        assertThat(sizer.nextBatchSize()).isEqualTo((int) (BUDGET_MICROS / 6.0)).isEqualTo(66);
    }

    @Test
    void shouldNotShrinkForAFewOutliers() {
        serverCosts(2.0, WINDOW);
        rounds(5);

        // When four of the last nine calls ran 50 times longer, as when the server was descheduled mid-script
        for (int i = 0; i < 4; i++) {
            serverCosts(100.0, 1);
            serverCosts(2.0, 1);
        }

        // Then the batch stays
        assertThat(sizer.nextBatchSize()).isEqualTo(200);
    }

    @Test
    void shouldGrowBackOverSeveralRoundsWhenTheServerIsFastAgain() {
        serverCosts(6.0, WINDOW);
        assertThat(sizer.nextBatchSize()).isEqualTo(66);

        // When the server costs 2 µs per lease again
        serverCosts(2.0, WINDOW);

        // Then it takes five rounds to come back to 200
        assertThat(rounds(6)).containsExactly(83, 104, 130, 163, 200, 200);
    }

    @Test
    void shouldIgnoreAReadingOfNoTimeOrNoLeases() {
        serverCosts(2.0, WINDOW);
        rounds(5);

        // When servers whose clock stands still during a script answer 0 µs, many times
        for (int i = 0; i < 1_000; i++) {
            sizer.record(200, 0);
            sizer.record(0, 500);
        }

        // Then nothing changed: a reading of no time never grows a batch
        assertThat(sizer.nextBatchSize()).isEqualTo(200);
        assertThat(sizer.microsPerLease()).isEqualTo(2.0);
    }

    @Test
    void shouldStayWithinItsBoundsWhateverTheReadings() {
        serverCosts(0.01, WINDOW); // (1 µs for 100 leases: the least a reading can say)
        assertThat(rounds(30)).last().isEqualTo(MAX_BATCH);

        serverCosts(10_000, WINDOW);
        assertThat(sizer.nextBatchSize()).isEqualTo(MIN_BATCH).isPositive();
    }

    @Test
    void shouldKeepAtLeastRedissonsBatchWhileALeaseCostsAtMostFourMicroseconds() {
        // A healthy server: costs per lease anywhere from 0.5 to 4 µs, call after call, in any order
        Random random = new Random(18);
        int smallest = Integer.MAX_VALUE;
        for (int round = 0; round < 1_000; round++) {
            int batch = sizer.nextBatchSize();
            smallest = Math.min(smallest, batch);
            for (int call = 0; call < 1 + random.nextInt(20); call++) {
                int leases = 1 + random.nextInt(batch);
                sizer.record(leases, (long) Math.floor(leases * (0.5 + 3.5 * random.nextDouble())));
            }
        }

        // Then no round's batch is smaller than 100 leases: n leases take at most n / 100 calls, as with Redisson
        assertThat(smallest).isGreaterThanOrEqualTo(START_BATCH);
        assertThat(BUDGET_MICROS / START_BATCH).isEqualTo(4);
    }
}
