package io.leasehold.lock.history;

import io.leasehold.lock.LeaseLoss;
import io.leasehold.lock.LockEventListener;
import java.util.Objects;

/**
 * A {@link LockEventListener} that writes a {@link LossSignal} for every lease its client loses, so
 * that a worker records losses even of leases whose {@code lost()} future it no longer watches.
 * Register it with {@code LockClient.builder(backend).listener(new LossSignalListener(history))}.
 *
 * <p>This class is threadsafe.
 */
public final class LossSignalListener implements LockEventListener {

    private final HistoryWriter history;

    public LossSignalListener(HistoryWriter history) {
        this.history = Objects.requireNonNull(history, "history");
    }

    @Override
    public void onLeaseLost(LeaseLoss loss) {
        history.loss(loss);
    }
}
