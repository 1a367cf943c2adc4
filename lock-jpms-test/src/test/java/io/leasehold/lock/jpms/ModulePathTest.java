package io.leasehold.lock.jpms;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The published modules as a Java user on the module path meets them: an application that
 * {@code requires io.leasehold.lock} (and the driver, metrics and testkit modules) compiles and runs,
 * the API finds the engine (module {@code io.leasehold.lock.engine}) as a service, and the engine's
 * package ({@code io.leasehold.lock.internal}) is out of its reach at compile time and at run time;
 * no module can reach it, not even one of Leasehold's (the testkit reads a client through
 * the public {@code LockClient.diagnostics()}). The applications are in {@code src/jpms}; the module
 * path is this module's runtime dependencies, the published jars.
 */
class ModulePathTest {

    private static final String CONSUMER_MAIN = "io.leasehold.jpms.consumer/io.leasehold.jpms.consumer.Main";

    private final String modulePath = requiredProperty("jpms.consumer.modulePath");
    private final Path sources = Paths.get(requiredProperty("jpms.sources"));
    private final Path work = Paths.get(requiredProperty("jpms.work"));

    @Test
    void shouldRunAModularApplicationThatUsesTheApiButCannotReachTheEngine() throws Exception {
        Path classes = work.resolve("consumer-classes");
        Compilation compiled = javac(sources.resolve("consumer"), classes);
        assertThat(compiled.exitCode())
                .as("javac of the consumer:%n%s", compiled.output())
                .isZero();

        // Jedis is an automatic module and declares no requires: its own dependencies (commons-pool2)
        // join the module graph only when added, as in any modular application that uses Jedis.
        Run run = java(
                "--module-path",
                classes + pathSeparator() + modulePath,
                "--add-modules",
                "ALL-MODULE-PATH",
                "-m",
                CONSUMER_MAIN);

        assertThat(run.exitCode())
                .as("the consumer's output:%n%s", run.output())
                .isZero();
        assertThat(run.lines())
                .contains(
                        "api module: io.leasehold.lock",
                        "exports io.leasehold.lock: true",
                        "exports io.leasehold.lock.spi: true",
                        "exports io.leasehold.lock.spi.support: true",
                        "engine module: io.leasehold.lock.engine",
                        "engine exports: []",
                        "engine provides: [io.leasehold.lock.spi.LockEngine]",
                        "exports io.leasehold.lock.internal: false",
                        "opens io.leasehold.lock.internal: false",
                        "exports io.leasehold.lock.internal to the testkit: false",
                        "opens io.leasehold.lock.internal to the testkit: false",
                        "modules the engine is exported or open to: none",
                        "qualified exports and opens: none (api), none (engine)",
                        "leases while held: 1",
                        "engine class loads: io.leasehold.lock.internal.EngineProvider, public true",
                        "reflective call into the engine: IllegalAccessException",
                        "setAccessible on the engine: InaccessibleObjectException",
                        "lettuce module: io.leasehold.lock.lettuce",
                        "jedis module: io.leasehold.lock.jedis",
                        "jedis backend: JedisLockBackend{standalone}",
                        "micrometer module: io.leasehold.lock.micrometer",
                        "inmemory module: io.leasehold.lock.inmemory",
                        "testkit module: io.leasehold.lock.testkit",
                        "history module: io.leasehold.lock.history, max silence PT1M",
                        "done");
        assertThat(run.lines())
                .anySatisfy(line -> assertThat(line).startsWith("client class: io.leasehold.lock.internal."));
        assertThat(run.lines()).anySatisfy(line -> assertThat(line).matches("acquired: orders token [1-9][0-9]*"));
    }

    /** The control: the same program on the class path reaches the engine, so the test above can tell. */
    @Test
    void shouldReachTheEngineOnlyWhenTheSameApplicationRunsOnTheClassPath() throws Exception {
        Path classes = work.resolve("consumer-classes-for-class-path");
        Compilation compiled = javac(sources.resolve("consumer"), classes);
        assertThat(compiled.exitCode())
                .as("javac of the consumer:%n%s", compiled.output())
                .isZero();

        Run run = java("-cp", classes + pathSeparator() + modulePath, "io.leasehold.jpms.consumer.Main");

        assertThat(run.exitCode())
                .as("the consumer's output:%n%s", run.output())
                .isZero();
        assertThat(run.lines())
                .contains(
                        "exports io.leasehold.lock.internal: true",
                        "exports io.leasehold.lock.internal to the testkit: true",
                        "reflective call into the engine: allowed");
    }

    /**
     * JSpecify's annotations are on the API for nullness checkers, never needed to compile against it:
     * a modular application with a driver and no JSpecify on its module path compiles.
     */
    @Test
    void shouldCompileAModularApplicationWithOneDriverAndNoNullnessAnnotations() {
        String withoutJspecify = Stream.of(modulePath.split(pathSeparator()))
                .filter(entry -> !Paths.get(entry).getFileName().toString().startsWith("jspecify"))
                .collect(java.util.stream.Collectors.joining(pathSeparator()));
        assertThat(withoutJspecify)
                .as("the module path had JSpecify to leave out")
                .isNotEqualTo(modulePath);

        Compilation compiled =
                javac(sources.resolve("driver-only"), work.resolve("driver-only-classes"), withoutJspecify);

        assertThat(compiled.exitCode())
                .as("javac of an application with only the Lettuce driver:%n%s", compiled.output())
                .isZero();
    }

    @Test
    void shouldNotCompileAModularApplicationThatImportsTheEngine() {
        Compilation compiled = javac(sources.resolve("intruder"), work.resolve("intruder-classes"));

        assertThat(compiled.exitCode())
                .as("javac of the intruder:%n%s", compiled.output())
                .isNotZero();
        assertThat(compiled.output())
                .contains("package io.leasehold.lock.internal is not visible")
                .contains("package io.leasehold.lock.internal is declared in module io.leasehold.lock.engine,"
                        + " which does not export it");
    }

    private Compilation javac(Path sourceRoot, Path classes) {
        return javac(sourceRoot, classes, modulePath);
    }

    private Compilation javac(Path sourceRoot, Path classes, String modulePath) {
        // In process, javac would take this JVM's class path (the test's, lock-api included) as the
        // unnamed module; an empty class path leaves the consumer nothing but the module path.
        Path emptyClassPath = work.resolve("empty-class-path");
        try {
            Files.createDirectories(emptyClassPath);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> args = new ArrayList<>(List.of(
                "--release",
                "17",
                "-Xlint:all",
                "-d",
                classes.toString(),
                "--class-path",
                emptyClassPath.toString(),
                "--module-path",
                modulePath));
        try (Stream<Path> files = Files.walk(sourceRoot)) {
            files.filter(file -> file.toString().endsWith(".java"))
                    .map(Path::toString)
                    .forEach(args::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        ToolProvider javac = ToolProvider.findFirst("javac")
                .orElseThrow(() -> new IllegalStateException("no javac in this JDK: the JPMS test needs a JDK"));
        StringWriter out = new StringWriter();
        PrintWriter writer = new PrintWriter(out);
        int exitCode = javac.run(writer, writer, args.toArray(String[]::new));
        writer.flush();
        return new Compilation(exitCode, out.toString());
    }

    private static Run java(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("CLASSPATH");
        Process process = builder.start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("the consumer did not exit within 120 s: " + command);
        }
        return new Run(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }

    private static String pathSeparator() {
        return System.getProperty("path.separator");
    }

    private static String requiredProperty(String name) {
        String value = System.getProperty(name);
        if (value == null || value.isBlank() || value.startsWith("${")) {
            throw new IllegalStateException("system property " + name + " is not set: run this test through Maven"
                    + " (mvn verify -pl lock-jpms-test -am), which sets it to " + value);
        }
        return value;
    }

    private record Compilation(int exitCode, String output) {}

    private record Run(int exitCode, String output) {
        List<String> lines() {
            return output.lines().toList();
        }
    }
}
