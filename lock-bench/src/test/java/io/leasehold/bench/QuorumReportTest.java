package io.leasehold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The quorum section's ratios, its goal line and its table. */
class QuorumReportTest {

    private static final String SCENARIO = "quorum: uncontended, 1 worker";

    @Test
    void shouldComputeTheGoalsRatiosFromTheMediansPerDriver() {
        List<Measurement> runs = List.of(
                run(QuorumReport.leasehold(true, 1), 1000),
                run(QuorumReport.leasehold(true, 3), 600),
                run(QuorumReport.leasehold(true, 3), 500),
                run(QuorumReport.leasehold(true, 3), 400),
                run(QuorumReport.leasehold(false, 1), 1000),
                run(QuorumReport.leasehold(false, 3), 400),
                run(QuorumReport.RED_LOCK, 250));

        List<QuorumReport.GoalRatios> ratios = QuorumReport.ratios(runs);

        assertThat(ratios)
                .containsExactly(
                        new QuorumReport.GoalRatios(SCENARIO, QuorumReport.LETTUCE, 0.5, 2.0),
                        new QuorumReport.GoalRatios(SCENARIO, QuorumReport.JEDIS, 0.4, 1.6));
        assertThat(ratios.get(0).met()).isTrue();
        assertThat(ratios.get(1).met()).isFalse();
        assertThat(QuorumReport.verdict(ratios))
                .isEqualTo("**Goal not met in this run**: missed by Leasehold-Jedis in uncontended, 1 worker.");
        assertThat(QuorumReport.verdict(ratios.subList(0, 1))).startsWith("**Goal met in this run**");
    }

    @Test
    void shouldRenderASectionOfItsOwnOnlyWhenTheGroupRan() {
        List<Measurement> runs =
                List.of(run(QuorumReport.leasehold(true, 1), 1000), run(QuorumReport.leasehold(true, 3), 600));

        String section = QuorumReport.render(runs);

        assertThat(section).contains("### " + SCENARIO);
        assertThat(section).contains("|Leasehold-Lettuce, quorum of 3|600|9.0|60.0|4,000|");
        assertThat(section).contains("|" + SCENARIO + "|Leasehold-Lettuce|0.60×|–|no|");
        assertThat(section).contains("**Goal not met in this run**");
        assertThat(QuorumReport.render(List.of())).isEmpty();
        assertThat(new Report(List.of(), runs, new Environment("2026-11-28", 2, "OpenJDK 17", "7.0.15", "1 round"))
                        .render())
                .contains("## Quorum: 3 and 5 nodes");
    }

    private static Measurement run(String contender, double pairsPerSecond) {
        return Measurement.of(SCENARIO, contender)
                .put(Figures.OPS_PER_SECOND, pairsPerSecond)
                .put(Figures.CALLS_PER_OP, 9.0)
                .put(Figures.COMMANDS_PER_OP, 60.0)
                .put(Figures.ACQUIRE_P99_MICROS, 4000)
                .build();
    }
}
