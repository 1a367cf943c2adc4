/**
 * Network faults for tests that use a real Redis: {@link io.leasehold.lock.testkit.faults.FaultProxy},
 * a TCP proxy placed between clients and a server that adds latency, partitions, blackholes one
 * direction, cuts or refuses connections, and resumes — in pure Java, so that any test (yours too)
 * can break the network between a {@code LockClient} and Redis without root, {@code iptables} or an
 * external binary.
 */
package io.leasehold.lock.testkit.faults;
