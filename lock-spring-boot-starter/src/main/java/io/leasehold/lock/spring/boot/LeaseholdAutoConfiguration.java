package io.leasehold.lock.spring.boot;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockEventListener;
import io.leasehold.lock.spi.LockBackend;
import java.util.Optional;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Auto-configures a {@link LockClient} over the application's {@link RedisConnectionFactory} (Lettuce or
 * Jedis; standalone, Sentinel or Cluster, as {@code spring.data.redis.*} configures it), with the
 * {@code leasehold.*} properties ({@link LeaseholdProperties}) and every {@link LockEventListener} bean as
 * a listener. An application that defines its own {@link LockClient} bean gets none; one that defines a
 * {@link LockBackend} bean (a quorum of masters, say) gets a client over that backend instead of the
 * factory's. The client is closed when the context stops, before the connection factory stops, so that
 * its leases are released while Redis can still be reached.
 */
@AutoConfiguration(
        afterName = {
            "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration", // Boot 4
            "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration" // Boot 3
        })
@ConditionalOnClass({LockClient.class, RedisConnectionFactory.class})
@ConditionalOnBean(RedisConnectionFactory.class)
@EnableConfigurationProperties(LeaseholdProperties.class)
public class LeaseholdAutoConfiguration {

    /**
     * The client's backend, made from the connection factory unless the application defined one. Both
     * are parameters (not looked up later), so that the context knows this bean depends on them and
     * closes it, and the client, before them.
     */
    @Bean
    @ConditionalOnMissingBean(LockClient.class)
    ConnectionFactoryBackend leaseholdBackend(
            RedisConnectionFactory connectionFactory, Optional<LockBackend> ownBackend) {
        return ownBackend
                .map(ConnectionFactoryBackend::of)
                .orElseGet(() -> ConnectionFactoryBackend.of(connectionFactory));
    }

    /**
     * The lock client, closed when the context stops (before the connection factory stops) and made anew
     * if it starts again; see {@link LeaseholdLockClient}.
     */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(LockClient.class)
    LeaseholdLockClient leaseholdLockClient(
            ConnectionFactoryBackend backends,
            LeaseholdProperties properties,
            ObjectProvider<LockEventListener> listeners) {
        return new LeaseholdLockClient(() -> LeaseholdClients.build(
                backends.newBackend(), properties, listeners.orderedStream().toList()));
    }
}
