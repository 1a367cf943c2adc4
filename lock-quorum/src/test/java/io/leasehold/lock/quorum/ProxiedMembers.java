package io.leasehold.lock.quorum;

import io.leasehold.lock.spi.LockBackend;
import io.leasehold.lock.testkit.faults.FaultProxy;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link FaultProxy} in front of each member of a quorum of real servers ({@link RedisMembers}), and a
 * member backend of one driver through each: a client built on {@link #backends()} can be cut from
 * single members, while other clients reach them directly. Closing it closes the proxies.
 */
final class ProxiedMembers implements AutoCloseable {

    private final List<FaultProxy> proxies = new ArrayList<>();
    private final List<LockBackend> backends = new ArrayList<>();

    /** Proxies to every member of {@code fixture}, with a {@code driver} ("lettuce" or "jedis") backend through each. */
    ProxiedMembers(QuorumFixture fixture, String driver) {
        try {
            for (int i = 0; i < fixture.members().size(); i++) {
                FaultProxy proxy =
                        FaultProxy.start(RedisMembers.server(fixture, i).endpoint());
                proxies.add(proxy);
                backends.add(RedisMembers.member(driver, proxy.endpoint()));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The proxy in front of member {@code i}. */
    FaultProxy proxy(int i) {
        return proxies.get(i);
    }

    /** The member backends through the proxies, in the members' order (each closed with its quorum). */
    List<LockBackend> backends() {
        return backends;
    }

    @Override
    public void close() {
        proxies.forEach(FaultProxy::close);
    }
}
