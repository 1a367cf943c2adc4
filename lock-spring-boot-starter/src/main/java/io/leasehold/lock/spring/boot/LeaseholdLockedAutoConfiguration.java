package io.leasehold.lock.spring.boot;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.spring.Locked;
import io.leasehold.lock.spring.LockedInterceptor;
import org.springframework.aop.Advisor;
import org.springframework.aop.config.AopConfigUtils;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.context.annotation.Role;
import org.springframework.core.type.AnnotationMetadata;

/**
 * {@link Locked} methods: an advisor that runs them under their locks, taken through the application's
 * {@link LockClient} bean (the auto-configured one, or the application's own), ordered outside Spring's
 * transaction interceptor ({@link LockedInterceptor#ORDER}). It makes sure that the context proxies beans
 * for advisors (as {@code @EnableTransactionManagement} does), with Spring's default kind of proxy.
 */
@AutoConfiguration(after = LeaseholdAutoConfiguration.class)
@ConditionalOnClass(Advisor.class)
@ConditionalOnBean(LockClient.class)
@Import(LeaseholdLockedAutoConfiguration.ProxyCreatorRegistrar.class)
public class LeaseholdLockedAutoConfiguration {

    /**
     * The advisor of {@link Locked} methods. Static and with the client looked up at the first call:
     * advisors are made before other beans, and must not pull the lock client (and Redis) in early.
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static Advisor leaseholdLockedAdvisor(
            ObjectProvider<LockClient> client, ConfigurableListableBeanFactory beanFactory) {
        DefaultPointcutAdvisor advisor = new DefaultPointcutAdvisor(
                new AnnotationMatchingPointcut(null, Locked.class, true),
                new LockedInterceptor(client::getObject, beanFactory::resolveEmbeddedValue));
        advisor.setOrder(LockedInterceptor.ORDER);
        return advisor;
    }

    /** Registers Spring's auto-proxy creator for infrastructure advisors, unless one (or a stronger one) is there. */
    static final class ProxyCreatorRegistrar implements ImportBeanDefinitionRegistrar {
        @Override
        public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
            AopConfigUtils.registerAutoProxyCreatorIfNecessary(registry);
        }
    }
}
