package io.leasehold.lock.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.leasehold.lock.inmemory.InMemoryLockBackend;
import io.leasehold.lock.spi.LockBackend;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * A decorator passes on everything the backend it decorates says of itself: a capability it dropped
 * would silently turn the engine's switches off (a quorum's grants taken from one server's message).
 */
class ForwardingLockBackendTest {

    /**
     * The SPI's default methods that the forwarder may leave to the default: {@code closeAsync} calls
     * {@code close()}, which a decorator that owns resources overrides (forwarding it would skip them).
     */
    private static final Set<String> LEFT_TO_THE_DEFAULT = Set.of("closeAsync");

    @Test
    void shouldForwardEveryMethodOfTheSpiThatTheBackendMayOverride() throws Exception {
        List<String> notForwarded = Arrays.stream(LockBackend.class.getMethods())
                .filter(Method::isDefault)
                .filter(method -> !Modifier.isStatic(method.getModifiers()))
                .filter(method -> !LEFT_TO_THE_DEFAULT.contains(method.getName()))
                .filter(method -> !declaredByForwarder(method))
                .map(Method::toString)
                .collect(Collectors.toList());

        assertEquals(List.of(), notForwarded, "SPI methods the forwarder drops");
    }

    @Test
    void shouldSayWhatTheDecoratedBackendSaysOfItsGrantsAndConfirmations() {
        try (InMemoryLockBackend node = new InMemoryLockBackend()) {
            LockBackend quorumLike = new ForwardingLockBackend(node) {
                @Override
                public boolean grantsAreComposed() {
                    return true;
                }

                @Override
                public boolean confirmsPartially() {
                    return true;
                }
            };

            CountingLockBackend decorated = new CountingLockBackend(quorumLike);
            CountingLockBackend plain = new CountingLockBackend(node);

            assertTrue(decorated.grantsAreComposed());
            assertTrue(decorated.confirmsPartially());
            assertFalse(plain.grantsAreComposed());
            assertFalse(plain.confirmsPartially());
        }
    }

    private static boolean declaredByForwarder(Method method) {
        try {
            return ForwardingLockBackend.class
                            .getDeclaredMethod(method.getName(), method.getParameterTypes())
                            .getDeclaringClass()
                    == ForwardingLockBackend.class;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
