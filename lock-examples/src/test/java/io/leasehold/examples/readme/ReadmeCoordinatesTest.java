package io.leasehold.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's "Get it" section names the coordinates and versions this build makes and pins
 * (handed over by the module's surefire configuration), so a version bump that forgets the README fails.
 */
class ReadmeCoordinatesTest {

    private static String getIt;

    @BeforeAll
    static void readGetItSection() throws IOException {
        Path moduleDir = Path.of(System.getProperty("leasehold.examples.dir", "."))
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

    private static String required(String property) {
        String value = System.getProperty(property);
        assertThat(value)
                .as("system property %s (set by lock-examples' surefire configuration)", property)
                .isNotBlank();
        return value;
    }
}
