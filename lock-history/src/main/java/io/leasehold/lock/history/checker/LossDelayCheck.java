package io.leasehold.lock.history.checker;

import io.leasehold.lock.history.FaultWindow;
import io.leasehold.lock.history.LossSignal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * How promptly losses were signalled: for each lost lease (its earliest loss record), the time since
 * the latest declared fault that began during its section and before the signal, the margin before
 * the next holder's section began, and how late the worker's callback ran after the detection.
 */
final class LossDelayCheck {

    private LossDelayCheck() {}

    static List<LossDelay> run(HistoryIndex index) {
        List<LossDelay> delays = new ArrayList<>();
        index.losses.forEach((key, signals) -> {
            LossSignal first = signals.stream()
                    .min(Comparator.comparingLong(LossSignal::time))
                    .orElseThrow();
            long lag =
                    signals.stream().mapToLong(s -> s.seen() - s.time()).min().orElse(0);
            Section section = index.sections.get(key);
            long sectionStart = section != null ? section.start() : first.time();
            Long afterFault = null;
            for (FaultWindow fault : index.faults) {
                if (fault.start() <= first.time() && fault.end() >= sectionStart) {
                    long delay = first.time() - fault.start();
                    afterFault = afterFault == null ? delay : Math.min(afterFault, delay);
                }
            }
            Long margin = null;
            for (Section next : index.sectionsByLock.getOrDefault(key.lock(), List.of())) {
                if (next.token() > key.token()) {
                    margin = next.start() - first.time();
                    break;
                }
            }
            delays.add(new LossDelay(
                    key.process(), key.lock(), key.token(), first.reason(), first.time(), afterFault, margin, lag));
        });
        delays.sort(Comparator.comparingLong(LossDelay::toldAt));
        return delays;
    }
}
