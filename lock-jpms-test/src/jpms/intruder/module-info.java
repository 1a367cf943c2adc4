// A modular application that reaches for the engine: it must not compile, even reading the engine's module.
module io.leasehold.jpms.intruder {
    requires io.leasehold.lock;
    requires io.leasehold.lock.engine;
}
