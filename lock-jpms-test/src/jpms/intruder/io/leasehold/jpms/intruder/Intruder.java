package io.leasehold.jpms.intruder;

import io.leasehold.lock.internal.EngineProvider;

public final class Intruder {
    public static void main(String[] args) {
        System.out.println(new EngineProvider());
    }
}
