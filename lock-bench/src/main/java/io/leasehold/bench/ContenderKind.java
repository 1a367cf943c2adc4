package io.leasehold.bench;

import io.lettuce.core.resource.ClientResources;
import java.time.Duration;

/** The implementations measured, each made fresh for every run with the clients its scenario asks for. */
enum ContenderKind {
    LEASEHOLD_LETTUCE,
    LEASEHOLD_JEDIS,
    REDISSON,
    RAW_SCRIPT,
    LEASEHOLD_LETTUCE_FAIR,
    LEASEHOLD_JEDIS_FAIR,
    REDISSON_FAIR;

    /** A contender with {@code clients} clients; {@code renewPeriod}, when not null, sets Redisson's watchdog to match it. */
    Contender create(String uri, int clients, ClientResources resources, Duration renewPeriod) {
        return switch (this) {
            case LEASEHOLD_LETTUCE ->
                new LeaseholdContender(LeaseholdContender.Driver.LETTUCE, false, uri, clients, resources);
            case LEASEHOLD_JEDIS ->
                new LeaseholdContender(LeaseholdContender.Driver.JEDIS, false, uri, clients, resources);
            // Redisson renews every third of its watchdog timeout, as Leasehold renews every third of its lease
            case REDISSON ->
                new RedissonContender(uri, clients, renewPeriod == null ? null : renewPeriod.multipliedBy(3), false);
            case RAW_SCRIPT -> new RawScriptContender(uri, resources);
            case LEASEHOLD_LETTUCE_FAIR ->
                new LeaseholdContender(LeaseholdContender.Driver.LETTUCE, true, uri, clients, resources);
            case LEASEHOLD_JEDIS_FAIR ->
                new LeaseholdContender(LeaseholdContender.Driver.JEDIS, true, uri, clients, resources);
            case REDISSON_FAIR -> new RedissonContender(uri, clients, null, true);
        };
    }
}
