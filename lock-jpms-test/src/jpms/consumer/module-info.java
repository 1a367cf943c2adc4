// A Java user's modular application: it requires the published modules by the names they declare.
module io.leasehold.jpms.consumer {
    requires io.leasehold.lock;
    requires io.leasehold.lock.lettuce;
    requires io.leasehold.lock.jedis;
    requires io.leasehold.lock.micrometer;
    requires io.leasehold.lock.inmemory;
    // lock-testkit is an automatic module (a stable Automatic-Module-Name in its manifest).
    requires io.leasehold.lock.testkit;
    // lock-history too (an automatic module: it reads the testkit).
    requires io.leasehold.lock.history;
}
