package io.leasehold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The median of script runs of which the slow log kept only those over its threshold. */
class StatsTest {

    @Test
    void shouldTakeTheMedianAmongTheLoggedRunsWhenFewerThanHalfWereTooShortToLog() {
        // 5 runs, 2 under the threshold: the median is the third smallest, the smallest logged one
        assertThat(Stats.medianOfLogged(new double[] {300, 200, 400}, 5)).isEqualTo(200);
        // 4 runs, 1 under the threshold: the median is the mean of the second and third
        assertThat(Stats.medianOfLogged(new double[] {300, 200, 500}, 4)).isEqualTo(250);
        assertThat(Stats.medianOfLogged(new double[] {3, 1, 2}, 3)).isEqualTo(2);
    }

    @Test
    void shouldTakeTheMedianOfTheLoggedRunsWhenTheCountersSawFewerThanTheLog() {
        // The log is reset, then the counters read: a call between the two is logged but not counted
        assertThat(Stats.medianOfLogged(new double[] {300, 200, 400}, 2)).isEqualTo(300);
    }

    @Test
    void shouldTellNoMedianWhenItIsAmongTheRunsTooShortToLog() {
        assertThat(Stats.medianOfLogged(new double[] {300}, 4)).isNaN();
        assertThat(Stats.medianOfLogged(new double[] {300, 400}, 4)).isNaN();
        assertThat(Stats.medianOfLogged(new double[0], 0)).isNaN();
    }
}
