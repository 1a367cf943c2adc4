package io.leasehold.lock.lettuce;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;

/**
 * Runs in a class loader without the engine (see {@link LettuceLockClientWithoutEngineTest}): asks
 * the driver for a client over a server that never answers, so that the backend is still connecting
 * when the lookup of the engine fails.
 */
public final class NoEngineProbe {

    private NoEngineProbe() {}

    /** The failure's message; {@code client[0]} is set to the Lettuce client, for the test to shut down. */
    public static String lockClientOverSilentServer(int port, Object[] client) {
        Thread.currentThread().setContextClassLoader(NoEngineProbe.class.getClassLoader());
        RedisClient mute = RedisClient.create(RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(port)
                .withTimeout(Duration.ofSeconds(60)) // the connect outlives the test unless the backend is closed
                .build());
        client[0] = mute;
        try {
            LettuceLockBackend.lockClient(mute).close();
            return "a client was built";
        } catch (IllegalStateException noEngine) {
            return noEngine.getMessage();
        }
    }
}
