package io.leasehold.lock.internal;

import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Owner values: 128 random bits per acquisition, never a thread or client id, so that a stale
 * holder can never pass an owner check meant for a newer one (G2).
 *
 * <p>The bits come from a few independent {@code SecureRandom} generators (DRBG, each seeded by the
 * platform's entropy source), one picked at random per call: the platform default on Linux
 * (NativePRNG) serialises every caller of the JVM on one lock, which a benchmark of 4 threads
 * acquiring at once showed blocked. Which generator serves a call has no bearing on the bits.
 *
 * <p>This class is threadsafe.
 */
final class OwnerIds {

    private static final SecureRandom[] GENERATORS =
            generators(Math.max(4, 2 * Runtime.getRuntime().availableProcessors()));

    private OwnerIds() {}

    /** 32 lower-case hex characters. */
    static String next() {
        byte[] bytes = new byte[16];
        GENERATORS[ThreadLocalRandom.current().nextInt(GENERATORS.length)].nextBytes(bytes);
        return HexFormat.of().formatHex(bytes);
    }

    private static SecureRandom[] generators(int count) {
        SecureRandom[] all = new SecureRandom[count];
        for (int i = 0; i < count; i++) {
            all[i] = newGenerator();
        }
        return all;
    }

    private static SecureRandom newGenerator() {
        try {
            return SecureRandom.getInstance("DRBG"); // in every JDK since 9
        } catch (NoSuchAlgorithmException absent) {
            return new SecureRandom(); // a platform without DRBG: its default, still a CSPRNG
        }
    }
}
