package io.leasehold.lock.testkit;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The system clock, recording which threads read it: the backend reads its clock on the thread
 * that runs a script, so this shows where scripts ran without racing on callback registration.
 */
final class ThreadRecordingClock extends Clock {

    final BlockingQueue<Thread> readers = new LinkedBlockingQueue<>();

    @Override
    public Instant instant() {
        readers.add(Thread.currentThread());
        return Instant.now();
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("not needed by these tests");
    }
}
