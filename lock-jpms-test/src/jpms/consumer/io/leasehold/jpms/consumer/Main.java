package io.leasehold.jpms.consumer;

import io.leasehold.lock.Lease;
import io.leasehold.lock.LockClient;
import io.leasehold.lock.jedis.JedisLockBackend;
import io.leasehold.lock.lettuce.LettuceLockBackend;
import io.leasehold.lock.micrometer.LeaseholdMetrics;
import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.history.checker.CheckOptions;
import io.leasehold.lock.testkit.InMemoryFixture;
import redis.clients.jedis.RedisClient;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

/**
 * Uses the API on the module path (the engine comes as a service), then tries to reach the engine. Prints one "key: value" line per
 * finding; ModulePathTest reads them.
 */
public final class Main {

    public static void main(String[] args) throws Exception {
        Module api = LockClient.class.getModule();
        System.out.println("api module: " + api.getName());

        LockClient client = LockClient.create(new InMemoryLockBackend());
        System.out.println("client class: " + client.getClass().getName());
        try (Lease lease = client.lock("orders").acquire(Duration.ofSeconds(5))) {
            System.out.println("acquired: " + lease.lockName() + " token " + lease.fencingToken());
            // What the client keeps is public: read through the API, not the engine
            System.out.println("leases while held: " + client.diagnostics().leases());
        }

        // The API exports its contract; the engine is a module of its own that exports nothing and is
        // open to nobody: the API finds it as a service.
        System.out.println("exports io.leasehold.lock: " + api.isExported("io.leasehold.lock"));
        System.out.println("exports io.leasehold.lock.spi: " + api.isExported("io.leasehold.lock.spi"));
        System.out.println("exports io.leasehold.lock.spi.support: " + api.isExported("io.leasehold.lock.spi.support"));
        Module engine = client.getClass().getModule();
        System.out.println("engine module: " + engine.getName());
        System.out.println("exports io.leasehold.lock.internal: " + engine.isExported("io.leasehold.lock.internal"));
        System.out.println("opens io.leasehold.lock.internal: " + engine.isOpen("io.leasehold.lock.internal"));
        // Nor to some modules only: not even the testkit, which reads a client through the API.
        Module testkit = InMemoryFixture.class.getModule();
        System.out.println("exports io.leasehold.lock.internal to the testkit: "
                + engine.isExported("io.leasehold.lock.internal", testkit));
        System.out.println("opens io.leasehold.lock.internal to the testkit: "
                + engine.isOpen("io.leasehold.lock.internal", testkit));
        if (engine.isNamed()) {
            System.out.println("engine exports: " + engine.getDescriptor().exports());
            System.out.println("engine provides: "
                    + engine.getDescriptor().provides().stream()
                            .map(ModuleDescriptor.Provides::service)
                            .toList());
            System.out.println("modules the engine is exported or open to: "
                    + modulesReaching(engine, "io.leasehold.lock.internal"));
            System.out.println("qualified exports and opens: "
                    + qualified(api.getDescriptor()) + " (api), " + qualified(engine.getDescriptor()) + " (engine)");
        }

        // A public engine class with a public constructor: on the class path anyone may call it; here
        // the class loads, but neither a call nor setAccessible gets through.
        Class<?> provider = Class.forName("io.leasehold.lock.internal.EngineProvider");
        System.out.println("engine class loads: " + provider.getName() + ", public "
                + Modifier.isPublic(provider.getModifiers()));
        Constructor<?> constructor = provider.getConstructor();
        try {
            constructor.newInstance();
            System.out.println("reflective call into the engine: allowed");
        } catch (IllegalAccessException e) {
            System.out.println("reflective call into the engine: IllegalAccessException");
        }
        try {
            constructor.setAccessible(true);
            System.out.println("setAccessible on the engine: allowed");
        } catch (InaccessibleObjectException e) {
            System.out.println("setAccessible on the engine: InaccessibleObjectException");
        }
        client.close();

        // The other published modules resolve and link by the names they declare.
        System.out.println("lettuce module: " + LettuceLockBackend.class.getModule().getName());
        System.out.println("jedis module: " + JedisLockBackend.class.getModule().getName());
        // The Jedis backend reads how the client holds its connections from Jedis itself (an automatic
        // module, open to it); it borrows none before the first call.
        try (RedisClient redis = RedisClient.create("redis://127.0.0.1:1");
                JedisLockBackend backend = JedisLockBackend.create(redis)) {
            System.out.println("jedis backend: " + backend);
        }
        System.out.println("micrometer module: " + LeaseholdMetrics.class.getModule().getName());
        System.out.println("inmemory module: " + InMemoryLockBackend.class.getModule().getName());
        System.out.println("testkit module: " + InMemoryFixture.class.getModule().getName());
        System.out.println("history module: " + CheckOptions.class.getModule().getName() + ", max silence "
                + CheckOptions.defaults().maxSilence());
        System.out.println("done");
    }

    /** The modules of {@code module}'s layer, other than itself, that {@code pkg} is exported or open to. */
    private static String modulesReaching(Module module, String pkg) {
        List<String> reaching = module.getLayer().modules().stream()
                .filter(other -> other != module && (module.isExported(pkg, other) || module.isOpen(pkg, other)))
                .map(Module::getName)
                .sorted()
                .toList();
        return reaching.isEmpty() ? "none" : String.join(", ", reaching);
    }

    /** The packages {@code descriptor} exports or opens to some modules only, with those modules. */
    private static String qualified(ModuleDescriptor descriptor) {
        List<String> found = Stream.concat(
                        descriptor.exports().stream()
                                .filter(ModuleDescriptor.Exports::isQualified)
                                .map(e -> "exports " + e.source() + " to " + e.targets()),
                        descriptor.opens().stream()
                                .filter(ModuleDescriptor.Opens::isQualified)
                                .map(o -> "opens " + o.source() + " to " + o.targets()))
                .sorted()
                .toList();
        return found.isEmpty() ? "none" : String.join("; ", found);
    }
}
