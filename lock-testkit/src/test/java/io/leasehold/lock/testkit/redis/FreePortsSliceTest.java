package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FreePortsSliceTest {

    @Test
    void shouldUseTheWholeRangeWhenNotForked() {
        assertEquals(new FreePorts.Slice(11000, 22000), FreePorts.Slice.of(null, null));
        assertEquals(new FreePorts.Slice(11000, 22000), FreePorts.Slice.of("", ""));
        assertEquals(new FreePorts.Slice(11000, 22000), FreePorts.Slice.of("1", "1"));
    }

    @Test
    void shouldGiveEachForkItsOwnPartOfTheRange() {
        assertEquals(new FreePorts.Slice(11000, 14666), FreePorts.Slice.of("1", "3"));
        assertEquals(new FreePorts.Slice(14666, 18332), FreePorts.Slice.of("2", "3"));
        assertEquals(new FreePorts.Slice(18332, 21998), FreePorts.Slice.of("3", "3"));
    }

    @Test
    void shouldRejectAForkNumberOutsideTheForkCount() {
        IllegalArgumentException outside =
                assertThrows(IllegalArgumentException.class, () -> FreePorts.Slice.of("4", "3"));
        assertEquals(
                "leasehold.testkit.fork must be in [1, leasehold.testkit.forks], but was 4 of 3", outside.getMessage());
        IllegalArgumentException notANumber =
                assertThrows(IllegalArgumentException.class, () -> FreePorts.Slice.of("x", "3"));
        assertEquals("leasehold.testkit.fork must be a whole number, but was 'x'", notANumber.getMessage());
    }
}
