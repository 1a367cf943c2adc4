package io.leasehold.lock.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.leasehold.lock.spi.MessageListener;
import io.leasehold.lock.spi.Subscription;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** One subscription per member behind one (QuorumSubscription), and publishes in each member's own mode. */
class QuorumSubscriptionTest {

    private static final String NAME = "orders:11";
    private static final String OWNER = "0123456789abcdef0123456789abcdef";

    private final Members members = new Members(3);
    private final List<String> heard = new CopyOnWriteArrayList<>();
    private final MessageListener listener = (channel, message) -> heard.add(channel + " " + message);

    @AfterEach
    void close() {
        members.close();
    }

    private static String channel() {
        return Members.acquireKeys(NAME).get(4);
    }

    @Test
    void shouldHearAReleaseOnEveryMemberInItsOwnPubSubModeAndUnsubscribeEverywhere() throws Exception {
        try (QuorumBackend quorum = members.quorum()) {
            Subscription subscription = quorum.subscribe(channel(), listener).get(10, TimeUnit.SECONDS);
            for (int i = 0; i < 3; i++) {
                assertEquals(1, members.store(i).subscriberCount(channel()), "subscribed on member " + i);
            }
            // When a lock held on every member is released, with the quorum's own (fixed) publish command
            for (int i = 0; i < 3; i++) {
                members.store(i).writeKey(Members.lockKey(NAME), OWNER + ":5");
            }
            assertEquals(
                    1L,
                    quorum.eval(Members.RELEASE, Members.releaseKeys(NAME), Members.releaseArgs(OWNER))
                            .get(10, TimeUnit.SECONDS));
            // Then each member published with its own command (SPUBLISH in memory: a PUBLISH would reach
            // nobody), and the listener heard all three
            Members.await("three 'released' messages; heard " + heard, () -> heard.size() == 3);
            assertEquals(List.of(channel() + " released", channel() + " released", channel() + " released"), heard);
            subscription.unsubscribe().get(10, TimeUnit.SECONDS);
            for (int i = 0; i < 3; i++) {
                assertEquals(0, members.store(i).subscriberCount(channel()), "unsubscribed on member " + i);
            }
        }
    }

    @Test
    void shouldSubscribeWhileOneMemberIsDown() throws Exception {
        members.store(0).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            Subscription subscription = quorum.subscribe(channel(), listener).get(10, TimeUnit.SECONDS);
            assertEquals(channel(), subscription.channel());
            assertEquals(1, members.store(1).subscriberCount(channel()));
            assertEquals(1, members.store(2).subscriberCount(channel()));
        }
    }

    @Test
    void shouldFailAndLeaveNoSubscriptionWhileAMajorityIsDown() throws Exception {
        members.store(0).makeUnavailable();
        members.store(1).makeUnavailable();
        try (QuorumBackend quorum = members.quorum()) {
            ExecutionException e = assertThrows(
                    ExecutionException.class,
                    () -> quorum.subscribe(channel(), listener).get(10, TimeUnit.SECONDS));
            QuorumUnavailableException cause = assertInstanceOf(QuorumUnavailableException.class, e.getCause());
            assertEquals(2, cause.getSuppressed().length);
            assertEquals(0, members.store(2).subscriberCount(channel()), "the one made was undone");
        }
    }
}
