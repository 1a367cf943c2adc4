package io.leasehold.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.bench.FifoCheck.Grant;
import io.leasehold.bench.FifoCheck.Place;
import io.leasehold.bench.FifoCheck.Result;
import io.leasehold.bench.FifoCheck.Sample;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The FIFO check of the fair rows: it must pass a queue served in order, and count every way a
 * grant can break the order that the audit can see. Owners are short names here (Redis's are 32
 * hex characters), tickets small numbers (Redis's are server time in µs), tokens above 100.
 */
class FifoCheckTest {

    @Test
    void shouldPassGrantsThatServeTheQueueInTicketOrder() {
        List<Sample> samples = List.of(
                sample(100, null, place("a", 1), place("b", 2), place("c", 3)),
                sample(102, grant("b", 102), place("c", 3), place("d", 4)),
                sample(104, grant("d", 104), place("e", 5)));
        List<Grant> messages = List.of(grant("a", 101), grant("b", 102), grant("c", 103), grant("d", 104));

        Result result = FifoCheck.check(samples, messages);

        assertThat(result.violations()).isZero();
        assertThat(result.examples()).isEmpty();
        // a and b behind the first sample (b had a ahead), c and d behind the second (d joined after it)
        assertThat(result.checkedGrants()).isEqualTo(4);
    }

    @Test
    void shouldCountAGrantThatOvertookAWaiterStillQueuedAfterIt() {
        List<Sample> samples = List.of(
                sample(100, null, place("a", 1), place("b", 2), place("c", 3)),
                sample(101, grant("b", 101), place("a", 1), place("c", 3)));

        Result result = FifoCheck.check(samples, List.of(grant("b", 101)));

        assertThat(result.violations()).isEqualTo(1);
        assertThat(result.examples())
                .singleElement()
                .asString()
                .contains("grant to b (token 101) overtook a (ticket 1)");
    }

    @Test
    void shouldCountAGrantThatCameBeforeTheGrantOfAWaiterAheadOfItInTheSameSample() {
        // both granted between two samples: the tokens must rise along the first sample's queue
        List<Sample> samples = List.of(
                sample(100, null, place("a", 1), place("b", 2), place("c", 3)), sample(102, null, place("c", 3)));

        Result result = FifoCheck.check(samples, List.of(grant("b", 101), grant("a", 102)));

        assertThat(result.violations()).isEqualTo(1);
        assertThat(result.examples()).singleElement().asString().contains("grant to b (token 101) overtook a");
    }

    @Test
    void shouldCountAGrantToAWaiterThatJoinedAfterTheSampleWhileAnEarlierOneStillWaits() {
        List<Sample> samples =
                List.of(sample(100, null, place("a", 1)), sample(101, grant("z", 101), place("a", 1), place("y", 5)));

        Result result = FifoCheck.check(samples, List.of(grant("z", 101)));

        assertThat(result.violations()).isEqualTo(1);
    }

    @Test
    void shouldCountAGrantWithoutAMessageThatASampleFoundHolding() {
        // b holds the lock with a new token, no message named it, and a still waits ahead of it
        List<Sample> samples =
                List.of(sample(100, null, place("a", 1), place("b", 2)), sample(101, grant("b", 101), place("a", 1)));

        Result result = FifoCheck.check(samples, List.of());

        assertThat(result.violations()).isEqualTo(1);
        assertThat(result.checkedGrants()).isEqualTo(1);
    }

    @Test
    void shouldCountAnEnqueueThatDidNotGoToTheTail() {
        List<Sample> samples =
                List.of(sample(100, null, place("a", 5)), sample(100, null, place("b", 3), place("a", 5)));

        Result result = FifoCheck.check(samples, List.of());

        assertThat(result.violations()).isEqualTo(1);
        assertThat(result.examples()).singleElement().asString().contains("b joined with ticket 3");
    }

    @Test
    void shouldCountGrantMessagesWhoseTokensDoNotRise() {
        Result result = FifoCheck.check(List.of(), List.of(grant("a", 102), grant("b", 101)));

        assertThat(result.violations()).isEqualTo(1);
        assertThat(result.examples()).singleElement().asString().contains("token 101, not above the one before (102)");
    }

    @Test
    void shouldNotBlameAGrantForAWaiterWhosePlaceLapsedAndWasTakenAgainBehindIt() {
        // a's place lapsed (ticket 1) and a queued again behind b (ticket 7): b's grant overtook nobody
        List<Sample> samples = List.of(
                sample(100, null, place("a", 1), place("b", 2)),
                sample(101, grant("b", 101), place("a", 7)),
                sample(102, grant("a", 102)));

        Result result = FifoCheck.check(samples, List.of(grant("b", 101), grant("a", 102)));

        assertThat(result.violations()).isZero();
    }

    @Test
    void shouldNotBlameAGrantForAWaiterAheadThatLeftWithoutAMessageBeforeTheNextSample() {
        // a left between the samples without a message (took the lock itself, or gave up): taken to have left in time
        List<Sample> samples = List.of(sample(100, null, place("a", 1), place("b", 2)), sample(101, grant("b", 101)));

        Result result = FifoCheck.check(samples, List.of(grant("b", 101)));

        assertThat(result.violations()).isZero();
        assertThat(result.checkedGrants()).isEqualTo(1);
    }

    @Test
    void shouldNotCountGrantsOutsideTheSampledSpanOrWithNobodyElseSeenWaiting() {
        List<Sample> samples = List.of(sample(100, null, place("a", 1)), sample(101, grant("a", 101)));
        List<Grant> messages = List.of(grant("x", 99), grant("a", 101), grant("y", 102));

        Result result = FifoCheck.check(samples, messages);

        assertThat(result.checkedGrants()).isZero(); // x before the first sample, y after the last, a alone
        assertThat(result.violations()).isZero();
    }

    private static Sample sample(long lastToken, Grant holder, Place... queue) {
        return new Sample(lastToken, holder, Arrays.asList(queue));
    }

    private static Place place(String owner, long ticket) {
        return new Place(owner, ticket);
    }

    private static Grant grant(String owner, long token) {
        return new Grant(owner, token);
    }
}
