package io.leasehold.lock;

import io.leasehold.lock.spi.LockEngine;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * Finds the {@link LockEngine} with {@link ServiceLoader}: on the class path through
 * {@code META-INF/services}, on the module path through the engine module's {@code provides}. The
 * API module does not depend on the engine; every driver artifact brings it.
 *
 * <p>Looked up with the API's own class loader first (the engine jar normally sits next to the API
 * jar), then with the thread's context class loader (containers and plugin systems that share the API
 * among applications that each bring their own engine). Only an engine found with the API's own loader
 * is kept, since it lives as long as the API; one found through a context loader is looked up again at
 * each {@code build()} (which is rare), so that an undeployed application's loader is never kept alive
 * and one application never gets another's engine.
 *
 * <p>A provider that cannot be loaded or made (a stale jar, a class missing from a shaded jar) is
 * skipped, and the next one tried; Leasehold's own engine is preferred to any other provider, and
 * several visible engines are logged as a warning naming where each came from.
 */
final class EngineLookup {

    private static final System.Logger LOG = System.getLogger(EngineLookup.class.getName());
    /** The provider that lock-engine registers. */
    private static final String LEASEHOLD_ENGINE = "io.leasehold.lock.internal.EngineProvider";
    /** Broken service entries tolerated in one lookup before it stops, in case an iterator cannot move past one. */
    private static final int MAX_FAILURES = 32;

    /** The engine found with the API's own class loader, kept for the API's lifetime. */
    private static volatile @Nullable LockEngine besideTheApi;

    private EngineLookup() {}

    /**
     * The engine; fails, as often as it is asked while none can be found, with a message naming the
     * service, the loaders tried, what to add, and every provider that failed.
     */
    static LockEngine engine() {
        LockEngine kept = besideTheApi;
        if (kept != null) {
            return kept;
        }
        List<String> failures = new ArrayList<>();
        ClassLoader api = LockEngine.class.getClassLoader();
        LockEngine engine = choose(ServiceLoader.load(LockEngine.class, api), failures);
        if (engine != null) {
            besideTheApi = engine;
            return engine;
        }
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null && context != api) {
            engine = choose(ServiceLoader.load(LockEngine.class, context), failures);
            if (engine != null) {
                return engine;
            }
        }
        throw new IllegalStateException(notFound(api, context, failures));
    }

    /** The engine among {@code loader}'s providers (Leasehold's own first), or null; adds what failed to {@code failures}. */
    private static @Nullable LockEngine choose(ServiceLoader<LockEngine> loader, List<String> failures) {
        List<ServiceLoader.Provider<LockEngine>> found = new ArrayList<>();
        Iterator<ServiceLoader.Provider<LockEngine>> providers = loader.stream().iterator();
        int failed = 0;
        while (failed < MAX_FAILURES) {
            try {
                if (!providers.hasNext()) {
                    break;
                }
                found.add(providers.next());
            } catch (ServiceConfigurationError | LinkageError e) {
                failures.add(e.toString());
                failed++;
            }
        }
        found.sort(Comparator.comparing(provider -> !provider.type().getName().equals(LEASEHOLD_ENGINE)));
        for (ServiceLoader.Provider<LockEngine> provider : found) {
            try {
                LockEngine engine = provider.get();
                if (found.size() > 1) {
                    LOG.log(
                            System.Logger.Level.WARNING,
                            found.size() + " Leasehold engines are visible ("
                                    + found.stream().map(EngineLookup::describe).collect(Collectors.joining(", "))
                                    + "); using " + describe(provider) + ". Keep one lock-engine, of lock-api's version"
                                    + " (import io.leasehold:lock-bom so that Maven picks matching versions).");
                }
                return engine;
            } catch (ServiceConfigurationError | LinkageError e) {
                failures.add(e.toString());
            }
        }
        return null;
    }

    private static String describe(ServiceLoader.Provider<LockEngine> provider) {
        Class<?> type = provider.type();
        CodeSource source = type.getProtectionDomain().getCodeSource();
        return type.getName() + " from " + (source == null ? "an unknown location" : source.getLocation());
    }

    private static String notFound(@Nullable ClassLoader api, @Nullable ClassLoader context, List<String> failures) {
        return "No Leasehold engine found (service " + LockEngine.class.getName() + ", looked up with the API's class"
                + " loader " + name(api) + " and the thread's context class loader " + name(context) + "): add a"
                + " driver artifact (io.leasehold:lock-lettuce or io.leasehold:lock-jedis), which brings"
                + " io.leasehold:lock-engine, or add io.leasehold:lock-engine itself (for example next to the"
                + " in-memory backend of lock-inmemory). A jlink or jpackage image needs --add-modules"
                + " io.leasehold.lock.engine (jlink binds no services); a shaded jar that relocates io.leasehold"
                + " needs the ServicesResourceTransformer; in a container, the engine must be in the API's class"
                + " loader or in the thread's context class loader."
                + (failures.isEmpty() ? "" : " Providers that failed: " + String.join("; ", failures));
    }

    private static String name(@Nullable ClassLoader loader) {
        if (loader == null) {
            return "(none)";
        }
        return loader.getName() != null ? "'" + loader.getName() + "'" : loader.toString();
    }
}
