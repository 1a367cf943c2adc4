package io.leasehold.lock.spring.boot;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The {@code leasehold.*} properties of the auto-configured {@link LockClient}. Each default is the
 * library's own ({@link LockClient.Builder}, {@link LockOptions}); a value the library refuses fails the
 * application's start with a message that names the property.
 */
@ConfigurationProperties(prefix = "leasehold")
public class LeaseholdProperties {

    /** Prefix of every Redis key and channel of the client's locks; must not contain '{' or '}'. */
    private String keyPrefix = LockClient.Builder.DEFAULT_KEY_PREFIX;

    /** How long the engine waits for one Redis reply before it treats the call as failed. */
    private Duration commandTimeout = LockClient.Builder.DEFAULT_COMMAND_TIMEOUT;

    /** Upper bound on closing the client when the application context closes. */
    private Duration closeTimeout = LockClient.Builder.DEFAULT_CLOSE_TIMEOUT;

    /** The options of a lock taken without options of its own. */
    private final Lease lease = new Lease();

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    public Duration getCloseTimeout() {
        return closeTimeout;
    }

    public void setCloseTimeout(Duration closeTimeout) {
        this.closeTimeout = closeTimeout;
    }

    public Lease getLease() {
        return lease;
    }

    /** {@code leasehold.lease.*}: the client's default {@link LockOptions}. */
    public static class Lease {

        /** Lease time of a lock: at least 50 ms. */
        private Duration time = LockOptions.DEFAULT_LEASE_TIME;

        /** Whether a held lease is renewed (every third of its lease time) until it is released. */
        private boolean autoRenew = LockOptions.DEFAULT_AUTO_RENEW;

        /** Longest a lease may be held, renewals included; none by default. At least the lease time. */
        private @Nullable Duration maxHoldTime;

        /** How long an acquire without a wait of its own waits for the lock. */
        private Duration defaultWait = LockOptions.DEFAULT_WAIT;

        public Duration getTime() {
            return time;
        }

        public void setTime(Duration time) {
            this.time = time;
        }

        public boolean isAutoRenew() {
            return autoRenew;
        }

        public void setAutoRenew(boolean autoRenew) {
            this.autoRenew = autoRenew;
        }

        public @Nullable Duration getMaxHoldTime() {
            return maxHoldTime;
        }

        public void setMaxHoldTime(@Nullable Duration maxHoldTime) {
            this.maxHoldTime = maxHoldTime;
        }

        public Duration getDefaultWait() {
            return defaultWait;
        }

        public void setDefaultWait(Duration defaultWait) {
            this.defaultWait = defaultWait;
        }
    }
}
