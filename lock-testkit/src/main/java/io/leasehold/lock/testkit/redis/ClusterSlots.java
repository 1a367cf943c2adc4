package io.leasehold.lock.testkit.redis;

import java.nio.charset.StandardCharsets;

/**
 * Redis Cluster's key → slot mapping: CRC16 (XMODEM) of the key's UTF-8 bytes, or of its hash tag
 * (the part between the first {@code {} and the next {@code }}, when that part is not empty),
 * modulo {@value #SLOTS}. Same result as {@code CLUSTER KEYSLOT}.
 *
 * <p>This class is threadsafe.
 */
public final class ClusterSlots {

    /** The number of slots in a Redis cluster. */
    public static final int SLOTS = 16384;

    private ClusterSlots() {}

    /** The slot of {@code key}. */
    public static int slot(String key) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int start = 0;
        int end = bytes.length;
        int open = indexOf(bytes, (byte) '{', 0);
        if (open >= 0) {
            int close = indexOf(bytes, (byte) '}', open + 1);
            if (close > open + 1) {
                start = open + 1;
                end = close;
            }
        }
        return crc16(bytes, start, end) & (SLOTS - 1);
    }

    /** CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0), as Redis computes it. */
    static int crc16(byte[] bytes, int start, int end) {
        int crc = 0;
        for (int i = start; i < end; i++) {
            crc ^= (bytes[i] & 0xFF) << 8;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
        }
        return crc & 0xFFFF;
    }

    private static int indexOf(byte[] bytes, byte wanted, int from) {
        for (int i = from; i < bytes.length; i++) {
            if (bytes[i] == wanted) {
                return i;
            }
        }
        return -1;
    }
}
