package io.leasehold.lock;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.spi.LockBackend;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * lock-api alone holds no engine (lock-engine depends on it, not the other way round), so its tests
 * see what an application sees that has the API but neither a driver nor the engine.
 */
class EngineLookupTest {

    private final LockBackend backend = (LockBackend) Proxy.newProxyInstance(
            LockBackend.class.getClassLoader(), new Class<?>[] {LockBackend.class}, (proxy, method, args) -> {
                throw new AssertionError("no engine, so no call: " + method.getName());
            });

    @Test
    void shouldNameTheArtifactsToAddWhenNoEngineIsOnThePath() {
        assertThatThrownBy(() -> LockClient.create(backend))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage(
                        "No Leasehold engine found: add a driver artifact (io.leasehold:lock-lettuce or"
                                + " io.leasehold:lock-jedis), which brings io.leasehold:lock-engine, or add"
                                + " io.leasehold:lock-engine itself (for example next to the in-memory backend of lock-inmemory)");
        // Asked again, it fails the same way: a missing engine is not cached as a broken class.
        assertThatThrownBy(() -> LockClient.builder(backend).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("No Leasehold engine found");
    }
}
