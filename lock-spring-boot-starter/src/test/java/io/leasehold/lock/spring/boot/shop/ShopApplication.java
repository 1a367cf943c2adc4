package io.leasehold.lock.spring.boot.shop;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A small Spring Boot application, as a user writes one: everything auto-configured (the Redis connection
 * factory from {@code spring.data.redis.*}, Leasehold's lock client, {@code @Locked} methods, health,
 * metrics), and one service of its own with a {@code @Locked} method ({@link Stock}). The
 * {@code @SpringBootTest} classes of {@code OnBootApplication} boot it.
 */
@SpringBootApplication
public class ShopApplication {}
