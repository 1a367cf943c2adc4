package io.leasehold.lock.testkit.conformance;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * Hands each {@link LockConformanceSuite} instance what it reads from JUnit's configuration parameters
 * (which fall back to system properties): the scenarios to run, and whether timeouts apply, as JUnit's
 * {@code junit.jupiter.execution.timeout.mode} says for its own {@code @Timeout}.
 *
 * <p>This class is threadsafe.
 */
final class SuiteConfiguration implements TestInstancePostProcessor {

    /** JUnit's switch for timeouts: {@code enabled} (the default), {@code disabled}, {@code disabled_on_debug}. */
    static final String TIMEOUT_MODE = "junit.jupiter.execution.timeout.mode";

    @Override
    public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
        if (testInstance instanceof LockConformanceSuite suite) {
            suite.configure(
                    context.getConfigurationParameter(LockConformanceSuite.SCENARIOS_PROPERTY)
                            .orElse(null),
                    timeoutsApply(
                            context.getConfigurationParameter(TIMEOUT_MODE).orElse("enabled")));
        }
    }

    /** Whether timeouts apply under JUnit's timeout {@code mode}; an unknown mode leaves them on, as JUnit does. */
    static boolean timeoutsApply(String mode) {
        return switch (mode.trim().toLowerCase(Locale.ROOT)) {
            case "disabled" -> false;
            case "disabled_on_debug" -> !debuggerAttached();
            default -> true;
        };
    }

    /** Whether this JVM runs with a JDWP agent, the test JUnit makes for {@code disabled_on_debug}. */
    private static boolean debuggerAttached() {
        try {
            return ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                    .anyMatch(argument -> argument.startsWith("-agentlib:jdwp") || argument.startsWith("-Xrunjdwp"));
        } catch (LinkageError | RuntimeException e) {
            return false; // java.management not in the module graph: no way to tell, so not a debug run
        }
    }
}
