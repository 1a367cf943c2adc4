/**
 * A Leasehold backend over a quorum of independent Redis masters.
 */
module io.leasehold.lock.quorum {
    requires transitive io.leasehold.lock;
    requires static org.jspecify;

    exports io.leasehold.lock.quorum;
}
