package io.leasehold.lock.internal;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import java.time.Duration;
import java.util.List;

/** Records the name of each lease event, in the order the listener hears of them. */
final class EventNames implements LockEventListener {
    private final List<String> names;

    EventNames(List<String> names) {
        this.names = names;
    }

    @Override
    public void onAcquired(String lockName, long fencingToken, Duration waited) {
        names.add("acquired");
    }

    @Override
    public void onReleased(String lockName, long fencingToken, Duration held) {
        names.add("released");
    }

    @Override
    public void onRenewed(String lockName, long fencingToken) {
        names.add("renewed");
    }

    @Override
    public void onRenewalFailed(String lockName, long fencingToken, Throwable cause) {
        names.add("renewalFailed");
    }

    @Override
    public void onLeaseUncertain(String lockName, long fencingToken, Duration validFor, Throwable cause) {
        names.add("uncertain");
    }

    @Override
    public void onLeaseReconfirmed(String lockName, long fencingToken) {
        names.add("reconfirmed");
    }

    @Override
    public void onLeaseLost(LeaseLoss loss) {
        names.add("lost");
    }
}
