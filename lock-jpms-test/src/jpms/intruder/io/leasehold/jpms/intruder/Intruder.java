package io.leasehold.jpms.intruder;

import io.leasehold.lock.internal.Checks;

public final class Intruder {
    public static void main(String[] args) {
        System.out.println(Checks.lockName("orders"));
    }
}
