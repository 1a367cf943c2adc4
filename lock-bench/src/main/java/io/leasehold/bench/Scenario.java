package io.leasehold.bench;

import java.time.Duration;

/** One thing measured for every contender it applies to, on a fresh set of clients each run. */
interface Scenario {

    String name();

    /** How many clients (application nodes) the contender is set up with for it. */
    int clients();

    boolean appliesTo(Contender contender);

    /** The renewal period the contender should be set up for (Redisson's watchdog is per client); null for its default. */
    default java.time.Duration renewPeriod() {
        return null;
    }

    Measurement run(Contender contender, RedisProbe redis, Duration warmUp, Duration window) throws Exception;
}
