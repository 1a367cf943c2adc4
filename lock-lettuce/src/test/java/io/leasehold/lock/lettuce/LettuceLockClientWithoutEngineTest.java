package io.leasehold.lock.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.testkit.driver.Eventually;
import java.io.File;
import java.net.MalformedURLException;
import java.net.ServerSocket;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@link LettuceLockBackend#lockClient} makes a backend and then a client over it: when no engine can
 * be found (an application without lock-engine on its path), the backend it made is closed, not left
 * connecting with a thread of its own and a listener on the user's client. Runs the driver in a class
 * loader over this test's class path without lock-engine.
 */
class LettuceLockClientWithoutEngineTest {

    @Test
    void shouldCloseTheBackendItMadeWhenNoEngineCanBeFound() throws Exception {
        List<URL> withoutEngine = Stream.of(testClassPath().split(File.pathSeparator))
                .filter(entry -> !entry.contains("lock-engine"))
                .map(LettuceLockClientWithoutEngineTest::url)
                .toList();
        Object[] client = new Object[1];
        ClassLoader before = Thread.currentThread().getContextClassLoader();
        try (ServerSocket silent = new ServerSocket(0);
                URLClassLoader isolated =
                        new URLClassLoader(withoutEngine.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Set<Thread> ours = ourThreads();
            try {
                String outcome = (String) isolated.loadClass(NoEngineProbe.class.getName())
                        .getMethod("lockClientOverSilentServer", int.class, Object[].class)
                        .invoke(null, silent.getLocalPort(), client);
                Thread.currentThread().setContextClassLoader(before);

                assertThat(outcome).startsWith("No Leasehold engine found");
                Eventually.until(
                        () -> "no thread of the backend is alive; alive: " + newThreads(ours),
                        () -> newThreads(ours).isEmpty());
            } finally {
                Thread.currentThread().setContextClassLoader(before);
                if (client[0] != null) { // before the loader closes: shutting down loads Lettuce's classes
                    client[0]
                            .getClass()
                            .getMethod("shutdown", Duration.class, Duration.class)
                            .invoke(client[0], Duration.ZERO, Duration.ofSeconds(2));
                }
            }
        }
    }

    private static String testClassPath() {
        return System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    }

    private static URL url(String entry) {
        try {
            return Path.of(entry).toUri().toURL();
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException(entry, e);
        }
    }

    private static Set<Thread> ourThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("leasehold-"))
                .collect(Collectors.toSet());
    }

    private static Set<String> newThreads(Set<Thread> before) {
        return ourThreads().stream()
                .filter(t -> !before.contains(t))
                .map(Thread::getName)
                .collect(Collectors.toSet());
    }
}
