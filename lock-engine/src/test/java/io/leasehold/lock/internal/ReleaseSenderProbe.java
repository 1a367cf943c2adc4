package io.leasehold.lock.internal;

import io.leasehold.lock.LockClient;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/** Reads a client's clean-up releases for the attack tests of the clean-ups (which live in another package). */
public final class ReleaseSenderProbe {

    private ReleaseSenderProbe() {}

    /** Clean-ups not settled yet, with their lock names. */
    public static Map<CompletableFuture<?>, String> pendingCleanUps(LockClient client) {
        return ((DefaultLockClient) client).releases().pendingCleanUps();
    }

    /** Of those, the ones still waiting for what they follow. */
    public static Set<CompletableFuture<?>> deferredCleanUps(LockClient client) {
        return ((DefaultLockClient) client).releases().deferredCleanUps();
    }
}
