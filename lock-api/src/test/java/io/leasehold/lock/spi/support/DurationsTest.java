package io.leasehold.lock.spi.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DurationsTest {

    @Test
    void shouldPrintSubSecondDurationsInTheirOwnUnitRounded() {
        assertThat(Durations.human(Duration.ofNanos(850))).isEqualTo("850 ns");
        assertThat(Durations.human(Duration.ofNanos(250_400))).isEqualTo("250 µs");
        assertThat(Durations.human(Duration.ofMillis(300))).isEqualTo("300 ms");
        assertThat(Durations.human(Duration.ofNanos(963_727_665))).isEqualTo("964 ms");
    }

    @Test
    void shouldPrintSecondsWithOneDecimalOnlyWhenItIsNotZero() {
        assertThat(Durations.human(Duration.ofMillis(1500))).isEqualTo("1.5 s");
        assertThat(Durations.human(Duration.ofSeconds(5))).isEqualTo("5 s");
        assertThat(Durations.human(Duration.ofMillis(59_940))).isEqualTo("59.9 s");
    }

    @Test
    void shouldPrintMinutesHoursAndDaysAsWholeSecondsLeavingOutZeroParts() {
        assertThat(Durations.human(Duration.ofSeconds(125))).isEqualTo("2 min 5 s");
        assertThat(Durations.human(Duration.ofMinutes(2))).isEqualTo("2 min");
        assertThat(Durations.human(Duration.ofMinutes(90))).isEqualTo("1 h 30 min");
        assertThat(Durations.human(Duration.ofSeconds(3605))).isEqualTo("1 h 5 s");
        assertThat(Durations.human(Duration.ofDays(365))).isEqualTo("365 d");
        assertThat(Durations.human(Duration.ofDays(3).plusHours(4))).isEqualTo("3 d 4 h");
    }

    @Test
    void shouldCarryARoundingIntoTheNextUnit() {
        assertThat(Durations.human(Duration.ofNanos(999))).isEqualTo("999 ns");
        assertThat(Durations.human(Duration.ofNanos(1_000))).isEqualTo("1 µs");
        assertThat(Durations.human(Duration.ofNanos(999_499))).isEqualTo("999 µs");
        assertThat(Durations.human(Duration.ofNanos(999_500))).isEqualTo("1 ms");
        assertThat(Durations.human(Duration.ofNanos(999_500_000))).isEqualTo("1 s");
        assertThat(Durations.human(Duration.ofMillis(59_950))).isEqualTo("1 min");
        assertThat(Durations.human(Duration.ofMillis(3_599_600))).isEqualTo("1 h");
    }

    @Test
    void shouldPrintZeroNegativeAndExtremeDurationsWithoutFailing() {
        assertThat(Durations.human(Duration.ZERO)).isEqualTo("0 s");
        assertThat(Durations.human(Duration.ofMillis(-300))).isEqualTo("-300 ms");
        assertThat(Durations.human(Duration.ofSeconds(Long.MAX_VALUE, 999_999_999)))
                .endsWith(" s")
                .doesNotContain("-");
        Duration mostNegative = Duration.ofSeconds(Long.MIN_VALUE);
        assertThat(Durations.human(mostNegative)).isEqualTo(mostNegative.toString());
        assertThat(Durations.human(null)).isEqualTo("null");
    }
}
