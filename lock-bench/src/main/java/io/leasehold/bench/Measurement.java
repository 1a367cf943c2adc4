package io.leasehold.bench;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** One run of one scenario for one contender: named figures in the order measured, the headline first (a figure a run did not measure is absent). */
record Measurement(String scenario, String contender, Map<String, Double> figures) {

    static Builder of(String scenario, String contender) {
        return new Builder(scenario, contender);
    }

    static final class Builder {
        private final String scenario;
        private final String contender;
        private final Map<String, Double> figures = new LinkedHashMap<>();

        private Builder(String scenario, String contender) {
            this.scenario = scenario;
            this.contender = contender;
        }

        Builder put(String figure, double value) {
            figures.put(figure, value);
            return this;
        }

        Measurement build() {
            return new Measurement(scenario, contender, Collections.unmodifiableMap(new LinkedHashMap<>(figures)));
        }
    }
}
