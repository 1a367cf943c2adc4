package io.leasehold.examples;

import io.leasehold.lock.micrometer.LeaseholdMeters;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import java.io.PrintStream;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/** Prints the lock meters lock-micrometer recorded during the demo: what an operator's dashboard would show. */
final class MetersReport {

    private MetersReport() {}

    static void print(MeterRegistry registry, PrintStream out) {
        out.println("Meters recorded by lock-micrometer (LeaseholdMetrics):");
        registry.getMeters().stream()
                .filter(MetersReport::worthShowing)
                .sorted(Comparator.comparing((Meter m) -> m.getId().getName()).thenComparing(m -> tags(m)))
                .forEach(meter -> out.printf("  %-62s %s%n", meter.getId().getName() + tags(meter), value(meter)));
    }

    /** Everything but the zero series of loss reasons that did not happen. */
    private static boolean worthShowing(Meter meter) {
        return !(meter instanceof Counter counter && counter.count() == 0);
    }

    private static String tags(Meter meter) {
        return meter.getId().getTags().stream()
                .filter(tag -> !tag.getKey().equals(LeaseholdMeters.TAG_LOCK_GROUP)
                        || !tag.getValue().equals("flash-sale"))
                .map(Tag::getValue)
                .collect(Collectors.joining(",", "{", "}"))
                .replace("{}", "");
    }

    private static String value(Meter meter) {
        if (meter instanceof Timer timer) {
            return String.format(
                    "%d, mean %.1f ms, max %.1f ms",
                    timer.count(), timer.mean(TimeUnit.MILLISECONDS), timer.max(TimeUnit.MILLISECONDS));
        }
        if (meter instanceof Counter counter) {
            return String.format("%.0f", counter.count());
        }
        if (meter instanceof Gauge gauge) {
            return String.format("%.0f now", gauge.value());
        }
        return meter.measure().toString();
    }
}
