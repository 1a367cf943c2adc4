package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.AccessOp;
import io.leasehold.lock.history.AccessOutcome;
import io.leasehold.lock.history.AcquireAttempt;
import io.leasehold.lock.history.AcquireOutcome;
import io.leasehold.lock.history.FaultEffect;
import io.leasehold.lock.history.FaultWindow;
import io.leasehold.lock.history.History;
import io.leasehold.lock.history.HistoryEvent;
import io.leasehold.lock.history.LossSignal;
import io.leasehold.lock.history.ProcessEnded;
import io.leasehold.lock.history.ProcessStarted;
import io.leasehold.lock.history.ResourceAccess;
import io.leasehold.lock.history.ResourceState;
import io.leasehold.lock.history.ResourceUpdate;
import io.leasehold.lock.history.SectionEnded;
import io.leasehold.lock.history.SectionEnding;
import io.leasehold.lock.history.SectionStarted;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes test histories record by record, with a resource that fences like fenced-access.lua (so
 * that a history is realistic unless a test plants something in it). Times are small integers: the
 * checker only compares them.
 */
final class RunBuilder {

    static final String LOCK = "L";
    static final String RESOURCE = "counter";

    private final List<HistoryEvent> events = new ArrayList<>();
    private long value;
    private Long highest;
    private long seq;
    private final List<ResourceUpdate> log = new ArrayList<>();

    History history() {
        return History.of(events);
    }

    List<HistoryEvent> events() {
        return events;
    }

    RunBuilder add(HistoryEvent event) {
        events.add(event);
        return this;
    }

    RunBuilder started(String process, long time) {
        return add(new ProcessStarted(process, time));
    }

    RunBuilder ended(String process, long time) {
        return add(new ProcessEnded(process, time));
    }

    RunBuilder acquired(String process, long token, long start, long end) {
        return add(AcquireAttempt.acquired(process, LOCK, start, end, token));
    }

    RunBuilder failed(String process, AcquireOutcome outcome, long start, long end) {
        return add(AcquireAttempt.failed(process, LOCK, start, end, outcome, null));
    }

    RunBuilder sectionStart(String process, long token, long time) {
        return add(new SectionStarted(process, LOCK, token, time));
    }

    RunBuilder sectionEnd(String process, long token, long time, SectionEnding ending) {
        return add(new SectionEnded(process, LOCK, token, time, ending));
    }

    RunBuilder loss(String process, long token, long time) {
        return add(new LossSignal(process, LOCK, token, "EXPIRED", time, time + 3));
    }

    RunBuilder fault(String kind, FaultEffect effect, String target, long start, long end) {
        return add(new FaultWindow("nemesis", kind, effect, target, start, end));
    }

    /** A read at {@code time} (answered 5 later) that the fencing resource accepts or rejects. */
    RunBuilder read(String process, long token, long time) {
        seq++;
        boolean accepted = highest == null || token >= highest;
        if (accepted) {
            highest = token;
        }
        return add(new ResourceAccess(
                process,
                LOCK,
                RESOURCE,
                AccessOp.READ,
                token,
                accepted ? AccessOutcome.ACCEPTED : AccessOutcome.REJECTED,
                accepted ? value : null,
                seq,
                time,
                time + 5,
                null));
    }

    /** A write of {@code newValue} at {@code time} (answered 5 later) that the fencing resource accepts or rejects. */
    RunBuilder write(String process, long token, long newValue, long time) {
        seq++;
        boolean accepted = highest == null || token >= highest;
        if (accepted) {
            highest = token;
            log.add(new ResourceUpdate("runner", RESOURCE, seq, token, value, newValue, time + 2));
            value = newValue;
        }
        return add(new ResourceAccess(
                process,
                LOCK,
                RESOURCE,
                AccessOp.WRITE,
                token,
                accepted ? AccessOutcome.ACCEPTED : AccessOutcome.REJECTED,
                accepted ? newValue : null,
                seq,
                time,
                time + 5,
                null));
    }

    /** A write the resource wrongly accepts although it saw a higher token: a broken resource, planted. */
    RunBuilder brokenWrite(String process, long token, long newValue, long time) {
        seq++;
        log.add(new ResourceUpdate("runner", RESOURCE, seq, token, value, newValue, time + 2));
        value = newValue;
        return add(new ResourceAccess(
                process,
                LOCK,
                RESOURCE,
                AccessOp.WRITE,
                token,
                AccessOutcome.ACCEPTED,
                newValue,
                seq,
                time,
                time + 5,
                null));
    }

    /** The current value of the modelled resource (what the next reader would get). */
    long value() {
        return value;
    }

    /**
     * A whole healthy section starting at {@code start}: acquire [start-20, start-2], read, write the value
     * read plus one, end 60 after the start, released.
     */
    RunBuilder section(String process, long token, long start) {
        acquired(process, token, start - 20, start - 2);
        sectionStart(process, token, start);
        long read = value;
        read(process, token, start + 10);
        write(process, token, read + 1, start + 30);
        return sectionEnd(process, token, start + 60, SectionEnding.RELEASED);
    }

    /** The resource's final state and log, as a runner copies them into the history. */
    RunBuilder snapshot(long time) {
        add(new ResourceState("runner", RESOURCE, value, highest, seq, time));
        log.forEach(this::add);
        return this;
    }

    /** A snapshot whose counter was planted to {@code counter}, with the real log. */
    RunBuilder snapshotWithCounter(long counter, long time) {
        add(new ResourceState("runner", RESOURCE, counter, highest, seq, time));
        log.forEach(this::add);
        return this;
    }
}
