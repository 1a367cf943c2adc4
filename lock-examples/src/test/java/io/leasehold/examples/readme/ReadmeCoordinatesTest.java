package io.leasehold.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's "Get it" section names the coordinates and versions this build makes and pins
 * (handed over by the module's surefire configuration), so a version bump that forgets the README fails.
 */
class ReadmeCoordinatesTest {

    private static Path moduleDir;
    private static String getIt;

    @BeforeAll
    static void readGetItSection() throws IOException {
        moduleDir = Path.of(System.getProperty("leasehold.examples.dir", "."))
                .toAbsolutePath()
                .normalize();
        String readme = Files.readString(moduleDir.resolveSibling("README.md"));
        int start = readme.indexOf("\n## Get it\n");
        assertThat(start).as("README.md has a '## Get it' section").isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        getIt = readme.substring(start, end < 0 ? readme.length() : end);
    }

    @Test
    void shouldImportTheBomOfThisVersionWithMavenAndGradle() {
        String version = required("leasehold.version");
        assertThat(getIt)
                .contains("<artifactId>lock-bom</artifactId>\n      <version>" + version
                        + "</version>\n      <type>pom</type>\n      <scope>import</scope>")
                .contains("implementation(platform(\"io.leasehold:lock-bom:" + version + "\"))");
    }

    @Test
    void shouldNameBothDriversByTheirArtifactIds() {
        assertThat(getIt)
                .contains(
                        "<groupId>io.leasehold</groupId>\n    <artifactId>lock-lettuce</artifactId> <!-- or lock-jedis -->")
                .contains("implementation(\"io.leasehold:lock-lettuce\") // or lock-jedis");
    }

    @Test
    void shouldNameTheKotlinAndCoroutinesVersionsTheBuildPins() {
        String coroutines = required("leasehold.kotlinx.coroutines.version");
        assertThat(getIt)
                .contains("Kotlin " + required("leasehold.kotlin.version") + " and kotlinx-coroutines " + coroutines)
                .contains("implementation(\"org.jetbrains.kotlinx:kotlinx-coroutines-core:" + coroutines + "\")");
    }

    @Test
    void shouldNameTheSlf4jVersionTheDriversBring() {
        String slf4j = required("leasehold.slf4j.version");
        assertThat(getIt)
                .contains("`slf4j-api` " + slf4j)
                .contains("`org.slf4j:slf4j-simple:" + slf4j + "`")
                .contains("`org.slf4j:slf4j-nop:" + slf4j + "`");
    }

    @Test
    void shouldNameInTheSupportedVersionsTableTheVersionsTheBuildTests() throws IOException {
        String table = getIt.substring(getIt.indexOf("### Supported versions"), getIt.indexOf("### Which driver"));
        assertVersionsRow(table, "Lettuce", "lettuce.version", required("leasehold.lettuce.version"));
        assertVersionsRow(table, "Jedis", "jedis.version", required("leasehold.jedis.version"));
        assertVersionsRow(table, "Kotlin (your compiler)", "kotlin.version", required("leasehold.kotlin.version"));
        assertVersionsRow(
                table,
                "kotlinx-coroutines",
                "kotlinx.coroutines.version",
                required("leasehold.kotlinx.coroutines.version"));
    }

    /**
     * The row of {@code name} (cells: name, oldest supported, tested, this build compiles with, proved
     * by) names as oldest what boot35 (Spring Boot 3.5's versions) sets {@code property} to, as tested
     * that, boot40's and this build's, and as this build's {@code buildVersion}.
     */
    private static void assertVersionsRow(String table, String name, String property, String buildVersion)
            throws IOException {
        String row = table.lines()
                .filter(line -> line.startsWith("| " + name + " |"))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no row '" + name + "' in:\n" + table));
        String[] cells = row.split(" \\| ");
        String oldest = consumerVersion("boot35", property);
        assertThat(cells[1]).as("oldest supported %s", name).isEqualTo(oldest);
        assertThat(cells[2].split(", "))
                .as("tested %s", name)
                .contains(
                        shortVersion(oldest),
                        shortVersion(consumerVersion("boot40", property)),
                        shortVersion(buildVersion));
        assertThat(cells[3]).as("%s this build compiles with", name).startsWith(buildVersion);
    }

    /** A version property of a consumer module's pom (lock-consumer-tests/{@code module}). */
    private static String consumerVersion(String module, String property) throws IOException {
        Path pom =
                moduleDir.resolveSibling("lock-consumer-tests").resolve(module).resolve("pom.xml");
        Matcher value =
                Pattern.compile("<" + Pattern.quote(property) + ">([^<]+)</").matcher(Files.readString(pom));
        assertThat(value.find()).as("%s sets %s", pom, property).isTrue();
        return value.group(1);
    }

    /** 6.8.2.RELEASE as the table's "tested" column writes it: 6.8.2. */
    private static String shortVersion(String version) {
        return version.replace(".RELEASE", "");
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        assertThat(value)
                .as("system property %s (set by lock-examples' surefire configuration)", property)
                .isNotBlank();
        return value;
    }
}
