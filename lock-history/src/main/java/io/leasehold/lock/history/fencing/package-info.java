/**
 * The protected resource of a safety test: {@link io.leasehold.lock.history.fencing.FencedResource},
 * a counter on a Redis server of its own that fences every access (reads included) with the lock's
 * fencing token, numbers its accesses and logs its accepted writes, so that a checker can tell a
 * stale accepted access or a lost update from its state.
 */
package io.leasehold.lock.history.fencing;
