// A Java user's modular application that depends on one driver and nothing else: no nullness
// annotations (JSpecify) on its module path, as in a build that has no nullness checker.
module io.leasehold.jpms.driveronly {
    requires io.leasehold.lock.lettuce;
}
