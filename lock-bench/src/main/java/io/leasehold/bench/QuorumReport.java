package io.leasehold.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The report's quorum section (issue 22): per scenario, one row per contender (medians over the
 * rounds; the throughput's min–max spread with more than one round), then the goal's two ratios per
 * scenario and driver, quorum of 3 ÷ single node and quorum of 3 ÷ Redisson's RedissonRedLock, and
 * one line that says whether the goal was met in this run.
 */
final class QuorumReport {

    static final String RED_LOCK = "Redisson RedissonRedLock, 3 nodes";
    static final String LETTUCE = "Leasehold-Lettuce";
    static final String JEDIS = "Leasehold-Jedis";
    /** The goal: quorum of 3 at this share of the single node's throughput or more … */
    static final double GOAL_VS_SINGLE = 0.5;
    /** … and at this multiple of Redisson's multi-node lock or more. */
    static final double GOAL_VS_RED_LOCK = 2.0;

    private QuorumReport() {}

    static String leasehold(boolean lettuce, int nodes) {
        return (lettuce ? LETTUCE : JEDIS) + (nodes == 1 ? ", 1 node" : ", quorum of " + nodes);
    }

    /** The goal's ratios in one scenario for one driver (NaN where a row is missing). */
    record GoalRatios(String scenario, String driver, double vsSingle, double vsRedLock) {
        boolean met() {
            return vsSingle >= GOAL_VS_SINGLE && vsRedLock >= GOAL_VS_RED_LOCK;
        }
    }

    /** Per scenario and driver (Lettuce, then Jedis), from the medians of the throughput. */
    static List<GoalRatios> ratios(List<Measurement> quorum) {
        List<GoalRatios> ratios = new ArrayList<>();
        byScenario(quorum).forEach((scenario, rows) -> {
            double redLock = median(rows.get(RED_LOCK));
            for (String driver : List.of(LETTUCE, JEDIS)) {
                double single = median(rows.get(driver + ", 1 node"));
                double three = median(rows.get(driver + ", quorum of 3"));
                if (!Double.isNaN(three)) {
                    ratios.add(new GoalRatios(scenario, driver, three / single, three / redLock));
                }
            }
        });
        return ratios;
    }

    /** The section, or nothing when the quorum group did not run. */
    static String render(List<Measurement> quorum) {
        if (quorum.isEmpty()) {
            return "";
        }
        StringBuilder md = new StringBuilder();
        md.append("## Quorum: 3 and 5 nodes vs a single node, and Redisson's RedissonRedLock\n\n");
        md.append("Each node its own standalone redis-server (the group starts 5); single node = the first of them,"
                + " quorum of 3 and RedissonRedLock = the first 3, quorum of 5 = all 5. Leasehold: plain `lock`,"
                + " 30 s lease with auto-renewal; Redisson: `new RedissonRedLock(c1.getLock(k), c2.getLock(k),"
                + " c3.getLock(k))`, one RedissonClient per node, `lock()` with its watchdog. Throughput in"
                + " acquire + release pairs/s (median, min–max over the rounds); round trips and Redis commands"
                + " per pair summed over the nodes (INFO commandstats deltas); acquire p99 from the call to the"
                + " lease in hand (contended: the wait for the holder included).\n\n");
        byScenario(quorum).forEach((scenario, rows) -> {
            md.append("### ").append(scenario).append("\n\n");
            boolean spread = rows.values().stream().anyMatch(runs -> runs.size() > 1);
            md.append("|contender|pairs/s")
                    .append(spread ? " (min–max)" : "")
                    .append("|round trips/pair|Redis commands/pair|acquire p99 µs|\n");
            md.append("|---|---|---|---|---|\n");
            rows.forEach((contender, runs) -> {
                double[] throughput = Report.values(runs, Figures.OPS_PER_SECOND);
                String cell = Report.number(Stats.median(throughput));
                if (spread && throughput.length > 1) {
                    cell += " (" + Report.number(min(throughput)) + "–" + Report.number(max(throughput)) + ")";
                }
                md.append('|').append(contender).append('|').append(cell);
                for (String figure :
                        List.of(Figures.CALLS_PER_OP, Figures.COMMANDS_PER_OP, Figures.ACQUIRE_P99_MICROS)) {
                    md.append('|').append(Report.number(Stats.median(Report.values(runs, figure))));
                }
                md.append("|\n");
            });
            md.append('\n');
        });
        List<GoalRatios> ratios = ratios(quorum);
        md.append(String.format(
                Locale.ROOT,
                "### Goal: quorum of 3 at ≥ %.1f× the single node's throughput and ≥ %.1f× RedissonRedLock's%n%n",
                GOAL_VS_SINGLE,
                GOAL_VS_RED_LOCK));
        md.append("|scenario|driver|quorum of 3 ÷ single node|quorum of 3 ÷ RedissonRedLock|met|\n");
        md.append("|---|---|---|---|---|\n");
        for (GoalRatios r : ratios) {
            md.append(String.format(
                    Locale.ROOT,
                    "|%s|%s|%s|%s|%s|%n",
                    r.scenario(),
                    r.driver(),
                    ratio(r.vsSingle()),
                    ratio(r.vsRedLock()),
                    r.met() ? "yes" : "no"));
        }
        md.append('\n').append(verdict(ratios)).append("\n\n");
        return md.toString();
    }

    /** The one line: met when every scenario and driver met both ratios; else which did not. */
    static String verdict(List<GoalRatios> ratios) {
        if (ratios.isEmpty()) {
            return "**Goal not assessed in this run**: no quorum-of-3 rows.";
        }
        List<String> missed = ratios.stream()
                .filter(r -> !r.met())
                .map(r -> r.driver() + " in " + r.scenario().replaceFirst("^quorum: ", ""))
                .toList();
        if (missed.isEmpty()) {
            return "**Goal met in this run**: quorum of 3 at ≥ 0.5× single node and ≥ 2× RedissonRedLock in every"
                    + " scenario, both drivers.";
        }
        return "**Goal not met in this run**: missed by " + String.join("; ", missed) + ".";
    }

    private static Map<String, Map<String, List<Measurement>>> byScenario(List<Measurement> quorum) {
        Map<String, Map<String, List<Measurement>>> grouped = new LinkedHashMap<>();
        for (Measurement m : quorum) {
            grouped.computeIfAbsent(m.scenario(), s -> new LinkedHashMap<>())
                    .computeIfAbsent(m.contender(), c -> new ArrayList<>())
                    .add(m);
        }
        grouped.replaceAll((scenario, rows) -> {
            Map<String, List<Measurement>> ordered = new LinkedHashMap<>();
            rows.keySet().stream().sorted().forEach(name -> ordered.put(name, rows.get(name)));
            return ordered;
        });
        return grouped;
    }

    private static double median(List<Measurement> runs) {
        return runs == null ? Double.NaN : Stats.median(Report.values(runs, Figures.OPS_PER_SECOND));
    }

    private static String ratio(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? "–" : String.format(Locale.ROOT, "%.2f×", value);
    }

    private static double min(double[] values) {
        return java.util.Arrays.stream(values).min().orElse(Double.NaN);
    }

    private static double max(double[] values) {
        return java.util.Arrays.stream(values).max().orElse(Double.NaN);
    }
}
