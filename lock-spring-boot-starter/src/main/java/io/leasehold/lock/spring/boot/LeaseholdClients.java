package io.leasehold.lock.spring.boot;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.LockOptions;
import io.leasehold.lock.spi.LockBackend;
import java.util.List;

/**
 * Builds the auto-configured {@link LockClient} from {@link LeaseholdProperties}. The library checks
 * every value; a refusal is rethrown with the property's name in front, so that the failed start says
 * which line of the configuration to fix: {@code leasehold.lease.time: leaseTime must be at least
 * PT0.05S, but was PT0.01S}.
 */
final class LeaseholdClients {

    private LeaseholdClients() {}

    /** A client over {@code backend} (which it closes when it is closed), told of every event by {@code listeners}. */
    static LockClient build(LockBackend backend, LeaseholdProperties properties, List<LockEventListener> listeners) {
        LockClient.Builder builder = LockClient.builder(backend);
        property("leasehold.key-prefix", () -> builder.keyPrefix(properties.getKeyPrefix()));
        property("leasehold.command-timeout", () -> builder.commandTimeout(properties.getCommandTimeout()));
        property("leasehold.close-timeout", () -> builder.closeTimeout(properties.getCloseTimeout()));
        builder.defaultOptions(defaultOptions(properties.getLease()));
        listeners.forEach(builder::listener);
        return builder.build();
    }

    private static LockOptions defaultOptions(LeaseholdProperties.Lease lease) {
        LockOptions.Builder options = LockOptions.builder().autoRenew(lease.isAutoRenew());
        property("leasehold.lease.time", () -> options.leaseTime(lease.getTime()));
        property("leasehold.lease.default-wait", () -> options.defaultWait(lease.getDefaultWait()));
        if (lease.getMaxHoldTime() != null) {
            property("leasehold.lease.max-hold-time", () -> options.maxHoldTime(lease.getMaxHoldTime()));
        }
        String checkedTogether = lease.getMaxHoldTime() == null ? "leasehold.lease" : "leasehold.lease.max-hold-time";
        return property(checkedTogether, options::build);
    }

    private static <T> T property(String name, java.util.function.Supplier<T> apply) {
        try {
            return apply.get();
        } catch (IllegalArgumentException | NullPointerException refused) {
            throw new IllegalArgumentException(name + ": " + refused.getMessage(), refused);
        }
    }
}
