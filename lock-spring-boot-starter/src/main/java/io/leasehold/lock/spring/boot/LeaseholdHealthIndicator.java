package io.leasehold.lock.spring.boot;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockClientDiagnostics;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The lock client's health: {@code UP} when Redis answers a read of one lock through the client's own
 * connections (the {@code inspect} script on {@link #PROBE_LOCK}, which writes nothing, bounded by the
 * client's command timeout), {@code DOWN} with the failure otherwise, or when the client is closed. The
 * details tell an operator what went wrong with leases lately, which the status does not: a lost lease is
 * a signal its holder had to act on, not a fault of the service. Details: {@code leases} (not settled
 * yet), {@code uncertainLeases} (now), {@code lostLeases} (within the last 15 minutes) and
 * {@code lastLoss} (its lock, reason and time).
 */
final class LeaseholdHealthIndicator extends AbstractHealthIndicator {

    /** The lock the probe reads; never taken. */
    static final String PROBE_LOCK = "leasehold-health-probe";

    private final LockClient client;
    private final LeaseTroubles troubles;

    LeaseholdHealthIndicator(LockClient client, LeaseTroubles troubles) {
        super("Leasehold lock client health check failed");
        this.client = client;
        this.troubles = troubles;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        LockClientDiagnostics diagnostics = client.diagnostics();
        builder.withDetail("leases", diagnostics.leases())
                .withDetail("uncertainLeases", troubles.uncertainNow())
                .withDetail("lostLeases", troubles.lostRecently());
        troubles.lastLoss()
                .ifPresent(loss -> builder.withDetail(
                        "lastLoss",
                        java.util.Map.of("lock", loss.lockName(), "reason", loss.reason(), "at", loss.at())));
        if (client.isClosed()) {
            builder.down().withDetail("closed", true);
            return;
        }
        client.lock(PROBE_LOCK).inspect(); // throws when Redis cannot be read: DOWN, with the failure
        builder.up();
    }
}
