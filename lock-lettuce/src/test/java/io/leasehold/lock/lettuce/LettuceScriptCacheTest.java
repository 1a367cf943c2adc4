package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.spi.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Scripts run by SHA and survive an emptied script cache (restart, failover, SCRIPT FLUSH) by one EVAL. */
class LettuceScriptCacheTest extends StandaloneClientTest {


    @Test
    void shouldFallBackToEvalOnceAfterScriptFlushAndCacheTheScriptAgain() throws Exception {
        try (LettuceLockBackend backend = LettuceLockBackend.create(client)) {
            LuaScript script = LuaScript.of("test", "return 7 -- " + UUID.randomUUID());
            assertThat(eval(backend, script)).isEqualTo(7L); // first use: not cached yet
            assertThat(backend.scriptFallbacks()).isEqualTo(1);
            assertThat(eval(backend, script)).isEqualTo(7L);
            assertThat(backend.scriptFallbacks()).as("served by EVALSHA once cached").isEqualTo(1);

            redis.scriptFlush();

            assertThat(eval(backend, script)).isEqualTo(7L);
            assertThat(backend.scriptFallbacks()).isEqualTo(2);
            assertThat(redis.server().command("SCRIPT", "EXISTS", script.sha1())).isEqualTo(List.of(1L));
            assertThat(eval(backend, script)).isEqualTo(7L);
            assertThat(backend.scriptFallbacks()).isEqualTo(2);
        }
    }

    @Test
    void shouldAcquireAndReleaseAfterScriptFlush() {
        try (LockClient locks = LettuceLockBackend.lockClient(client)) {
            String name = "script-cache:" + UUID.randomUUID();
            Lease first = locks.lock(name).acquire(Duration.ofSeconds(5));
            assertThat(first.release()).isTrue();

            redis.scriptFlush();

            Lease second = locks.lock(name).acquire(Duration.ofSeconds(5));
            assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
            redis.scriptFlush();
            assertThat(second.release()).as("release after another flush").isTrue();
            assertThat(locks.lock(name).isLocked()).isFalse();
        }
    }

    private static Object eval(LettuceLockBackend backend, LuaScript script) throws Exception {
        return backend.eval(script, List.of("script-cache:key"), List.of()).get(10, TimeUnit.SECONDS);
    }
}
