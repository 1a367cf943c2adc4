/**
 * A {@link io.leasehold.lock.spi.LockBackend} over a quorum of independent Redis masters:
 * {@link io.leasehold.lock.quorum.QuorumBackend}. Every call is sent to each member, and one reply
 * stands for the majority's; see docs/design/quorum-locks.md for the protocol.
 */
@NullMarked
package io.leasehold.lock.quorum;

import org.jspecify.annotations.NullMarked;
