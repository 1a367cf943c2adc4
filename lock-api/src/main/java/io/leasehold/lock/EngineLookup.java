package io.leasehold.lock;

import io.leasehold.lock.spi.LockEngine;
import java.util.Iterator;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import org.jspecify.annotations.Nullable;

/**
 * Finds the {@link LockEngine} once, with {@link ServiceLoader}: on the class path through
 * {@code META-INF/services}, on the module path through the engine module's {@code provides}. The
 * API module does not depend on the engine; every driver artifact brings it.
 *
 * <p>Looked up with the API's own class loader first (the engine jar sits next to the API jar),
 * then with the thread's context class loader (containers that load applications apart).
 */
final class EngineLookup {

    /** The engine once found; two threads that find it at once both find an equal, stateless provider. */
    private static volatile @Nullable LockEngine found;

    private EngineLookup() {}

    /** The engine; fails with a message naming the artifacts to add, as often as it is asked, while none is on the path. */
    static LockEngine engine() {
        LockEngine engine = found;
        if (engine == null) {
            engine = find();
            found = engine;
        }
        return engine;
    }

    private static LockEngine find() {
        @Nullable LockEngine engine = first(ServiceLoader.load(LockEngine.class, LockEngine.class.getClassLoader()));
        if (engine == null) {
            ClassLoader context = Thread.currentThread().getContextClassLoader();
            if (context != null) {
                engine = first(ServiceLoader.load(LockEngine.class, context));
            }
        }
        if (engine == null) {
            throw new IllegalStateException(
                    "No Leasehold engine found: add a driver artifact "
                            + "(io.leasehold:lock-lettuce or io.leasehold:lock-jedis), which brings io.leasehold:lock-engine, "
                            + "or add io.leasehold:lock-engine itself (for example next to the in-memory backend of lock-inmemory)");
        }
        return engine;
    }

    private static @Nullable LockEngine first(ServiceLoader<LockEngine> loader) {
        Iterator<LockEngine> engines = loader.iterator();
        try {
            return engines.hasNext() ? engines.next() : null;
        } catch (ServiceConfigurationError broken) {
            throw new IllegalStateException("The Leasehold engine could not be loaded: " + broken.getMessage(), broken);
        }
    }
}
