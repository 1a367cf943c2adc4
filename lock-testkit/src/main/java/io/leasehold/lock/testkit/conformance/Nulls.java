package io.leasehold.lock.testkit.conformance;

/**
 * Hands a {@code null} to Kotlin code as a platform type, so that the scenarios can pass null to the
 * API's non-null parameters the way a Java caller would (Kotlin rejects a null literal there).
 */
final class Nulls {

    private Nulls() {}

    @SuppressWarnings("TypeParameterUnusedInFormals")
    static <T> T nothing() {
        return null;
    }
}
