package io.leasehold.lock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.leasehold.lock.spi.ClientSettings;
import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.spi.LockEngine;
import java.io.IOException;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@link LockClient.Builder#build()} finds the engine. lock-api alone holds no engine (lock-engine
 * depends on it, not the other way round), so these tests see what an application sees that has the
 * API but neither a driver nor the engine, and put test engines in class loaders of their own, as
 * containers and plugin systems do.
 */
class EngineLookupTest {

    @TempDir
    Path dir;

    private final LockBackend backend = (LockBackend) Proxy.newProxyInstance(
            LockBackend.class.getClassLoader(), new Class<?>[] {LockBackend.class}, (proxy, method, args) -> {
                throw new AssertionError("no engine, so no call: " + method.getName());
            });
    private final ClassLoader contextBefore = Thread.currentThread().getContextClassLoader();
    private final List<URLClassLoader> loaders = new ArrayList<>();

    @AfterEach
    void restoreContextClassLoader() throws IOException {
        Thread.currentThread().setContextClassLoader(contextBefore);
        for (URLClassLoader loader : loaders) {
            loader.close();
        }
    }

    @Test
    void shouldNameTheArtifactsToAddWhenNoEngineIsOnThePath() {
        assertThatThrownBy(() -> LockClient.create(backend))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("No Leasehold engine found (service io.leasehold.lock.spi.LockEngine, looked up"
                        + " with the API's class loader")
                .hasMessageContaining("add a driver artifact (io.leasehold:lock-lettuce or io.leasehold:lock-jedis),"
                        + " which brings io.leasehold:lock-engine, or add io.leasehold:lock-engine itself")
                .hasMessageContaining("--add-modules io.leasehold.lock.engine")
                .hasMessageContaining("ServicesResourceTransformer");
        // Asked again, it fails the same way: a missing engine is not cached as a broken class.
        assertThatThrownBy(() -> LockClient.builder(backend).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("No Leasehold engine found");
    }

    @Test
    void shouldFindTheContextClassLoadersEngineAtEachBuildWithoutKeepingIt() throws IOException {
        // Two applications share the API (in a parent loader); each brings its own engine.
        ClassLoader first = loaderWithEngines(EngineA.class.getName());
        ClassLoader second = loaderWithEngines(EngineB.class.getName());

        assertThat(builtWith(first)).isEqualTo("engine A");
        assertThat(builtWith(second)).isEqualTo("engine B");
        // A thread of neither application finds none: the first application's engine was not kept (it
        // would keep that application's class loader from being collected after it was undeployed).
        Thread.currentThread()
                .setContextClassLoader(new URLClassLoader(new URL[0], getClass().getClassLoader()));
        assertThatThrownBy(() -> LockClient.create(backend))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("No Leasehold engine found");
    }

    @Test
    void shouldSkipAProviderThatCannotBeLoadedAndTakeTheNextOne() throws IOException {
        ClassLoader loader = loaderWithEngines("io.leasehold.lock.NoSuchEngine", EngineA.class.getName());

        assertThat(builtWith(loader)).isEqualTo("engine A");
    }

    @Test
    void shouldSayWhichProvidersFailedWhenNoneCanBeLoaded() throws IOException {
        Thread.currentThread().setContextClassLoader(loaderWithEngines("io.leasehold.lock.NoSuchEngine"));

        assertThatThrownBy(() -> LockClient.create(backend))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("No Leasehold engine found")
                .hasMessageContaining("Providers that failed: ")
                .hasMessageContaining("io.leasehold.lock.NoSuchEngine");
    }

    @Test
    void shouldWarnNamingEveryEngineWhenSeveralAreVisible() throws IOException {
        List<LogRecord> warnings = new ArrayList<>();
        Logger log = Logger.getLogger(EngineLookup.class.getName());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                warnings.add(record);
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        log.addHandler(capture);
        try {
            ClassLoader loader = loaderWithEngines(EngineA.class.getName(), EngineB.class.getName());

            assertThat(builtWith(loader)).isEqualTo("engine A");
        } finally {
            log.removeHandler(capture);
        }
        assertThat(warnings)
                .singleElement()
                .satisfies(record -> assertThat(record.getMessage())
                        .startsWith("2 Leasehold engines are visible")
                        .contains(EngineA.class.getName())
                        .contains(EngineB.class.getName())
                        .contains("lock-bom"));
    }

    @Test
    void shouldPreferLeaseholdsOwnEngineToAProviderListedBeforeIt() throws IOException {
        Thread.currentThread()
                .setContextClassLoader(loaderWithEngines(
                        EngineA.class.getName(), io.leasehold.lock.internal.EngineProvider.class.getName()));

        assertThatThrownBy(() -> LockClient.create(backend))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("made by Leasehold's engine");
    }

    /** What build() gave with {@code context} as the thread's context class loader: the test engine's name. */
    private String builtWith(ClassLoader context) {
        Thread.currentThread().setContextClassLoader(context);
        try {
            LockClient.create(backend);
            throw new AssertionError("a test engine makes no client");
        } catch (MadeBy made) {
            return made.getMessage();
        }
    }

    /** A loader, child of the tests' own, whose service file lists {@code providers} in that order. */
    private ClassLoader loaderWithEngines(String... providers) throws IOException {
        Path root = Files.createTempDirectory(dir, "app");
        Path services = root.resolve("META-INF/services/" + LockEngine.class.getName());
        Files.createDirectories(services.getParent());
        Files.writeString(services, String.join("\n", providers) + "\n");
        URLClassLoader loader =
                new URLClassLoader(new URL[] {root.toUri().toURL()}, getClass().getClassLoader());
        loaders.add(loader);
        return loader;
    }

    /** Thrown by the test engines instead of making a client: says which engine build() reached. */
    static final class MadeBy extends RuntimeException {
        MadeBy(String engine) {
            super(engine);
        }
    }

    /** A test engine. */
    public static final class EngineA implements LockEngine {
        @Override
        public LockClient newClient(ClientSettings settings) {
            throw new MadeBy("engine A");
        }
    }

    /** Another test engine. */
    public static final class EngineB implements LockEngine {
        @Override
        public LockClient newClient(ClientSettings settings) {
            throw new MadeBy("engine B");
        }
    }
}
