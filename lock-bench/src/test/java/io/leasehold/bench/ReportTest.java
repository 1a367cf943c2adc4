package io.leasehold.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench's arithmetic and its table: what the committed results are computed with. */
class ReportTest {

    private static final Environment HERE = new Environment("2026-11-25", 2, "OpenJDK 17", "7.0.15", "1 round");

    @Test
    void shouldShowMediansSpreadAndRatiosToRedissonAndRaw() {
        List<Measurement> runs = List.of(
                run("uncontended", "Leasehold-Lettuce", 300, 2.0),
                run("uncontended", "Leasehold-Lettuce", 100, 2.0),
                run("uncontended", "Leasehold-Lettuce", 200, 2.0),
                run("uncontended", "Redisson RLock", 100, 3.0),
                run("uncontended", "raw script", 400, 2.0));

        String table = new Report(runs, HERE).render();

        assertThat(table).contains("|contender|ops/s (min–max)|× Redisson|× raw|round trips/op|");
        assertThat(table).contains("|Leasehold-Lettuce|200 (100–300)|2.00×|0.50×|2.0|");
        assertThat(table).contains("|Redisson RLock|100|1.00×|0.25×|3.0|");
        assertThat(table).contains("2 cores").contains("redis-server 7.0.15");
    }

    @Test
    void shouldCompareAFairLockWithRedissonsFairLockAndAnyOtherWithRLock() {
        List<Measurement> runs = List.of(
                run("contended", "Leasehold-Jedis", 600, 1.0),
                run("contended", "Leasehold-Jedis fairLock", 300, 3.0),
                run("contended", "Redisson RLock", 200, 6.0),
                run("contended", "Redisson RFairLock", 100, 7.0));

        String table = new Report(runs, HERE).render();

        assertThat(table).contains("|Leasehold-Jedis|600|3.00×|");
        assertThat(table).contains("|Leasehold-Jedis fairLock|300|3.00×|");
        assertThat(table).contains("|Redisson RFairLock|100|1.00×|");
        assertThat(table).contains("|Redisson RLock|200|1.00×|");
    }

    @Test
    void shouldMeasureFairnessAndLatencyWithPlainDefinitions() {
        assertThat(Stats.coefficientOfVariationPercent(new long[] {10, 10, 10, 10}))
                .isZero();
        assertThat(Stats.coefficientOfVariationPercent(new long[] {0, 20})).isEqualTo(100.0);
        assertThat(Stats.percentile(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 50))
                .isEqualTo(5);
        assertThat(Stats.percentile(new long[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 99))
                .isEqualTo(10);
        assertThat(Stats.median(new double[] {3, 1, 2, 10})).isEqualTo(2.5);
        assertThat(Stats.percentile(new long[0], 99)).isNaN();
    }

    @Test
    void shouldTotalTheFifoAuditOverTheRoundsAndFlagARowWithAViolation() {
        List<Measurement> runs = List.of(
                fair("Leasehold-Jedis fairLock", 300, 1_000, 0),
                fair("Leasehold-Jedis fairLock", 310, 1_200, 2),
                fair("Leasehold-Lettuce fairLock", 290, 900, 0),
                Measurement.of("contended", "Redisson RFairLock")
                        .put(Figures.OPS_PER_SECOND, 100)
                        .build());

        String table = new Report(runs, HERE).render();

        assertThat(table).contains("|contender|ops/s (min–max)|× Redisson|FIFO checked grants|FIFO violations|");
        assertThat(table).contains("|Leasehold-Jedis fairLock|305 (300–310)|3.05×|2,200|2|");
        assertThat(table).contains("|Leasehold-Lettuce fairLock|290|2.90×|900|0|");
        assertThat(table).as("not measured, not zero").contains("|Redisson RFairLock|100|1.00×|–|–|");
        assertThat(table)
                .contains("**FIFO ORDER VIOLATED: Leasehold-Jedis fairLock**, 2 violation(s) in 1 of 2 round(s)");
        assertThat(table).doesNotContain("VIOLATED: Leasehold-Lettuce");
    }

    @Test
    void shouldExplainTheClientCpuColumnOnlyWhereItWasMeasured() {
        Measurement measured = Measurement.of("contended", "Leasehold-Jedis")
                .put(Figures.OPS_PER_SECOND, 600)
                .put(Figures.CLIENT_CPU_MICROS_PER_OP, 150)
                .build();

        String table = new Report(List.of(measured), HERE).render();
        String without = new Report(List.of(run("contended", "Leasehold-Jedis", 600, 1.0)), HERE).render();

        assertThat(table).contains("|contender|ops/s|client CPU µs/op|");
        assertThat(table).contains("|Leasehold-Jedis|600|150|");
        assertThat(table).contains("Client CPU is the bench JVM's CPU over the window per op");
        assertThat(without).doesNotContain("Client CPU");
    }

    @Test
    void shouldAuditTheFifoOrderUnlessTurnedOff() {
        assertThat(BenchOptions.parse().fifoAudit()).isTrue();
        assertThat(BenchOptions.parse("--quick", "--no-fifo-audit").fifoAudit()).isFalse();
    }

    @Test
    void shouldRefuseBadOptionsNamingTheOptionAndTheValue() {
        assertThatThrownBy(() -> BenchOptions.parse("--rounds", "0"))
                .hasMessage("--rounds must be at least 1, but was 0");
        assertThatThrownBy(() -> BenchOptions.parse("--window", "soon"))
                .hasMessage("--window must be a whole number, but was 'soon'");
        assertThatThrownBy(() -> BenchOptions.parse("--fast")).hasMessageContaining("unknown option '--fast'");
        assertThat(BenchOptions.parse("--rounds", "5").rounds()).isEqualTo(5);
        assertThat(BenchOptions.parse("--quick").window()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void shouldRunOnlyTheScenarioNamedWithOnly() {
        BenchOptions renewal = BenchOptions.parse("--only", "renewal", "--rounds", "1");

        assertThat(renewal.runs(BenchOptions.RENEWAL)).isTrue();
        assertThat(renewal.runs(BenchOptions.UNCONTENDED)).isFalse();
        assertThat(renewal.runs(BenchOptions.LIMIT)).isFalse();
        assertThat(renewal.rounds()).isEqualTo(1);
        assertThat(BenchOptions.parse("--quick", "--only", "waiting,renewal").runs(BenchOptions.WAITING))
                .isTrue();
        assertThat(BenchOptions.parse("--quick", "--only", "renewal").renewedLeases())
                .containsExactly(1_000);
        assertThat(BenchOptions.parse("--only", "renewal").renewedLeases()).containsExactly(10_000, 50_000);
        assertThat(BenchOptions.parse().runs(BenchOptions.CONTENDED))
                .as("every scenario by default")
                .isTrue();
    }

    @Test
    void shouldRefuseAnUnknownScenarioNamingTheKnownOnes() {
        assertThatThrownBy(() -> BenchOptions.parse("--only", "renew"))
                .hasMessage(
                        "--only must name scenarios among uncontended, contended, limit, waiting, renewal, dead-waiter,"
                                + " quorum (comma-separated), but was 'renew'");
        assertThatThrownBy(() -> BenchOptions.parse("--only")).hasMessage("option '--only' needs a value");
    }

    @Test
    void shouldLeaveOutTheChartsOfScenariosThatDidNotRun() {
        List<Measurement> renewalOnly = List.of(Measurement.of("10,000 leases held and renewed", "Leasehold-Lettuce")
                .put(Figures.SCRIPT_CALLS_PER_PERIOD, 20.0)
                .build());

        String table = new Report(renewalOnly, HERE).render();

        assertThat(table).contains("## 10,000 leases held and renewed").doesNotContain(".png");
    }

    private static Measurement fair(String contender, double opsPerSecond, long checkedGrants, long violations) {
        return Measurement.of("contended", contender)
                .put(Figures.OPS_PER_SECOND, opsPerSecond)
                .put(Figures.FIFO_CHECKED_GRANTS, checkedGrants)
                .put(Figures.FIFO_VIOLATIONS, violations)
                .build();
    }

    private static Measurement run(String scenario, String contender, double opsPerSecond, double callsPerOp) {
        return Measurement.of(scenario, contender)
                .put(Figures.OPS_PER_SECOND, opsPerSecond)
                .put(Figures.CALLS_PER_OP, callsPerOp)
                .build();
    }
}
