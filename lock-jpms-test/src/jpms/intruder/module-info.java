// A modular application that reaches for the engine: it must not compile.
module io.leasehold.jpms.intruder {
    requires io.leasehold.lock;
}
