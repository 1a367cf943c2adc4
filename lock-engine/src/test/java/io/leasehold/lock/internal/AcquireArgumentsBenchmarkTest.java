package io.leasehold.lock.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LuaScript;
import io.leasehold.lock.testkit.ForwardingLockBackend;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** The arguments benchmark builds what a real acquire sends, so that its copy of the engine's code cannot drift unnoticed. */
class AcquireArgumentsBenchmarkTest {

    @Test
    void shouldBuildTheKeysAndArgvThatARealAcquireSends() {
        List<List<List<String>>> acquires = new CopyOnWriteArrayList<>();
        ForwardingLockBackend recording = new ForwardingLockBackend(new InMemoryLockBackend()) {
            @Override
            public CompletableFuture<Object> eval(LuaScript script, List<String> keys, List<String> args) {
                if (script == EngineScripts.ACQUIRE) {
                    acquires.add(List.of(keys, args));
                }
                return super.eval(script, keys, args);
            }
        };
        LockOptions options =
                LockOptions.builder().leaseTime(Duration.ofSeconds(7)).build();

        try (LockClient client =
                        LockClient.builder(recording).keyPrefix("bench:").build();
                Lease lease = client.lock("orders:42", options).acquire(Duration.ofSeconds(5))) {
            assertThat(lease.isValid()).isTrue();
        }

        assertThat(acquires).hasSize(1);
        List<String> keys = acquires.get(0).get(0);
        List<String> args = acquires.get(0).get(1);
        String owner = args.get(0); // random: the one part the benchmark fixes
        assertThat(owner).matches("[0-9a-f]{32}");
        assertThat(keys).isEqualTo(AcquireArgumentsBenchmark.acquireKeys("bench:", "orders:42"));
        assertThat(args).isEqualTo(AcquireArgumentsBenchmark.acquireArgs(owner, 7_000));
    }
}
