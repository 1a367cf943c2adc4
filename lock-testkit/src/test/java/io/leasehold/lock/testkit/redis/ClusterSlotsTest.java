package io.leasehold.lock.testkit.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ClusterSlotsTest {

    @Test
    void shouldComputeCrc16Xmodem() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertEquals(0x31C3, ClusterSlots.crc16(check, 0, check.length));
    }

    @Test
    void shouldMatchSlotsDocumentedByRedis() {
        assertEquals(12182, ClusterSlots.slot("foo"));
        assertEquals(5061, ClusterSlots.slot("bar"));
        assertEquals(866, ClusterSlots.slot("hello"));
    }

    @Test
    void shouldHashOnlyTheFirstNonEmptyHashTag() {
        assertEquals(ClusterSlots.slot("user1000"), ClusterSlots.slot("{user1000}.following"));
        assertEquals(ClusterSlots.slot("{user1000}.followers"), ClusterSlots.slot("{user1000}.following"));
        assertEquals(ClusterSlots.slot("bar"), ClusterSlots.slot("foo{bar}{zap}"));
        assertEquals(ClusterSlots.slot("{bar"), ClusterSlots.slot("foo{{bar}}zap"));
    }

    @Test
    void shouldHashTheWholeKeyWhenTheFirstTagIsEmptyOrUnclosed() {
        byte[] whole = "foo{}{bar}".getBytes(StandardCharsets.UTF_8);
        assertEquals(ClusterSlots.crc16(whole, 0, whole.length) & 16383, ClusterSlots.slot("foo{}{bar}"));
        byte[] unclosed = "foo{bar".getBytes(StandardCharsets.UTF_8);
        assertEquals(ClusterSlots.crc16(unclosed, 0, unclosed.length) & 16383, ClusterSlots.slot("foo{bar"));
    }

    @Test
    void shouldKeepAllKeysOfOneLockInOneSlot() {
        String lock = io.leasehold.lock.spi.LockKeys.lockKey("leasehold:", "orders:42");
        assertEquals(
                ClusterSlots.slot(lock),
                ClusterSlots.slot(io.leasehold.lock.spi.LockKeys.fenceKey("leasehold:", "orders:42")));
        assertEquals(ClusterSlots.slot("orders:42"), ClusterSlots.slot(lock));
    }
}
