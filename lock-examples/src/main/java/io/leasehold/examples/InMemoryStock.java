package io.leasehold.examples;

import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A "remote" stock kept in this JVM, for when no Redis is available: every call pays a simulated
 * network round trip (half before the store sees it, half after), so that concurrent
 * read-modify-writes interleave the way they would over a network.
 *
 * <p>This class is threadsafe.
 */
final class InMemoryStock {

    private final long halfTripNanos;
    private long items;
    private long highestToken;

    InMemoryStock(Duration roundTrip) {
        this.halfTripNanos = roundTrip.toNanos() / 2;
    }

    /** A connection from one node; all connections see the same stock. */
    StockStore connect() {
        return new StockStore() {
            @Override
            public void reset(long newItems) {
                call(() -> {
                    items = newItems;
                    highestToken = 0;
                    return null;
                });
            }

            @Override
            public long read() {
                return call(() -> items);
            }

            @Override
            public void write(long newItems) {
                call(() -> items = newItems);
            }

            @Override
            public OptionalLong readFenced(long fencingToken) {
                return call(() -> {
                    if (fencingToken < highestToken) {
                        return OptionalLong.empty();
                    }
                    highestToken = fencingToken;
                    return OptionalLong.of(items);
                });
            }

            @Override
            public boolean writeFenced(long newItems, long fencingToken) {
                return call(() -> {
                    if (fencingToken < highestToken) {
                        return false;
                    }
                    highestToken = fencingToken;
                    items = newItems;
                    return true;
                });
            }

            @Override
            public long highestTokenSeen() {
                return call(() -> highestToken);
            }

            @Override
            public void close() {}
        };
    }

    private interface Op<T> {
        T run();
    }

    private <T> T call(Op<T> op) {
        LockSupport.parkNanos(halfTripNanos);
        T result;
        synchronized (this) {
            result = op.run();
        }
        LockSupport.parkNanos(halfTripNanos);
        return result;
    }
}
