package io.leasehold.lock;

import static io.leasehold.lock.LockClientDiagnostics.CLIENT_WIDE_TIMER_TASKS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The record's own rules: what quiescent means, and counts that cannot be negative. */
class LockClientDiagnosticsTest {

    private static final int COUNTS = 10;

    /** Diagnostics with every count 0 but the one at {@code index}, which is {@code value}. */
    private static LockClientDiagnostics with(int index, int value) {
        int[] c = new int[COUNTS];
        c[index] = value;
        return new LockClientDiagnostics(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]);
    }

    @Test
    void shouldBeQuiescentWithNothingCountedAndTheClientWideTimerTasksAtMost() {
        assertThat(with(9, 0).isQuiescent()).isTrue();
        assertThat(with(9, CLIENT_WIDE_TIMER_TASKS).isQuiescent()).isTrue();
        assertThat(CLIENT_WIDE_TIMER_TASKS).isEqualTo(2);
    }

    @Test
    void shouldNotBeQuiescentWithOneTimerTaskMoreThanTheClientWideOnes() {
        assertThat(with(9, CLIENT_WIDE_TIMER_TASKS + 1).isQuiescent()).isFalse();
    }

    @Test
    void shouldNotBeQuiescentWithAnyOtherCountAboveZero() {
        for (int index = 0; index < COUNTS - 1; index++) {
            assertThat(with(index, 1).isQuiescent())
                    .as("count %d at 1: %s", index, with(index, 1))
                    .isFalse();
        }
    }

    @Test
    void shouldRejectANegativeCountNamingIt() {
        String[] names = Arrays.stream(LockClientDiagnostics.class.getRecordComponents())
                .map(component -> component.getName())
                .toArray(String[]::new);
        assertThat(names).hasSize(COUNTS);
        for (int index = 0; index < COUNTS; index++) {
            int i = index;
            assertThatThrownBy(() -> with(i, -1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(names[i] + " must be at least 0, but was -1");
        }
    }
}
