package io.leasehold.lock.internal;

import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * Owner values: 128 random bits per acquisition, never a thread or client id, so that a stale
 * holder can never pass an owner check meant for a newer one (G2).
 */
final class OwnerIds {

    private static final SecureRandom RANDOM = new SecureRandom();

    private OwnerIds() {
    }

    /** 32 lower-case hex characters. */
    static String next() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
