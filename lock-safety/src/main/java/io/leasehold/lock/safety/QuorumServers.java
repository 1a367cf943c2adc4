package io.leasehold.lock.safety;

import io.leasehold.lock.testkit.redis.RedisEndpoint;
import io.leasehold.lock.testkit.redis.RedisFixtures;
import io.leasehold.lock.testkit.redis.RedisNode;
import io.leasehold.lock.testkit.redis.StandaloneRedis;
import java.util.ArrayList;
import java.util.List;

/**
 * The members of a {@link Scenario.Topology#QUORUM} run: independent standalone redis-servers, started
 * on free ports (without persistence, so a restarted member comes back empty) and stopped on close.
 */
final class QuorumServers implements AutoCloseable {

    private final List<StandaloneRedis> members;

    private QuorumServers(List<StandaloneRedis> members) {
        this.members = members;
    }

    /** Starts {@code size} servers; stops those already started when one fails to start. */
    static QuorumServers start(int size) {
        List<StandaloneRedis> members = new ArrayList<>(size);
        try {
            for (int i = 0; i < size; i++) {
                members.add(RedisFixtures.startStandalone());
            }
        } catch (RuntimeException e) {
            members.forEach(StandaloneRedis::close);
            throw e;
        }
        return new QuorumServers(members);
    }

    /** The members' servers, in member order (the order of the workers' quorum URIs). */
    List<RedisNode> servers() {
        return members.stream().map(StandaloneRedis::server).toList();
    }

    /** Where clients reach the members, in member order. */
    List<RedisEndpoint> endpoints() {
        return members.stream().map(StandaloneRedis::endpoint).toList();
    }

    @Override
    public void close() {
        members.forEach(StandaloneRedis::close);
    }
}
