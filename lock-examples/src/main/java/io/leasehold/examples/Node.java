package io.leasehold.examples;

import io.leasehold.lock.LockClient;

/**
 * One simulated application node: its own {@link LockClient} (over its own backend and
 * connections) and its own connection to the stock.
 */
record Node(String name, LockClient locks, StockStore stock) {}
