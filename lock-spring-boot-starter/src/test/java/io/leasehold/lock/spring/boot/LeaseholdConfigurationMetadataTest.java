package io.leasehold.lock.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.LockClient;
import io.leasehold.lock.LockOptions;
import java.io.InputStream;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataProperty;
import org.springframework.boot.configurationmetadata.ConfigurationMetadataRepositoryJsonBuilder;
import org.springframework.boot.convert.DurationStyle;

/**
 * The configuration metadata that an IDE completes {@code leasehold.*} from, read as the IDE reads it:
 * every property is described, and each default it shows is the library's own.
 */
class LeaseholdConfigurationMetadataTest {

    private static Map<String, ConfigurationMetadataProperty> properties() throws Exception {
        try (InputStream in = LeaseholdConfigurationMetadataTest.class
                .getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("the metadata the configuration processor wrote").isNotNull();
            return ConfigurationMetadataRepositoryJsonBuilder.create(in).build().getAllProperties();
        }
    }

    @Test
    void shouldDescribeEveryLeaseholdProperty() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = properties();

        assertThat(properties)
                .containsOnlyKeys(
                        "leasehold.key-prefix",
                        "leasehold.command-timeout",
                        "leasehold.close-timeout",
                        "leasehold.lease.time",
                        "leasehold.lease.auto-renew",
                        "leasehold.lease.max-hold-time",
                        "leasehold.lease.default-wait",
                        "management.health.leasehold.enabled");
        assertThat(properties.values())
                .allSatisfy(property -> assertThat(property.getDescription())
                        .as(property.getId())
                        .isNotBlank());
    }

    @Test
    void shouldShowTheLibrarysOwnDefaults() throws Exception {
        Map<String, ConfigurationMetadataProperty> properties = properties();

        assertThat(properties.get("leasehold.key-prefix").getDefaultValue())
                .isEqualTo(LockClient.Builder.DEFAULT_KEY_PREFIX);
        assertThat(durationDefault(properties, "leasehold.command-timeout"))
                .isEqualTo(LockClient.Builder.DEFAULT_COMMAND_TIMEOUT);
        assertThat(durationDefault(properties, "leasehold.close-timeout"))
                .isEqualTo(LockClient.Builder.DEFAULT_CLOSE_TIMEOUT);
        assertThat(durationDefault(properties, "leasehold.lease.time")).isEqualTo(LockOptions.DEFAULT_LEASE_TIME);
        assertThat(properties.get("leasehold.lease.auto-renew").getDefaultValue())
                .isEqualTo(LockOptions.DEFAULT_AUTO_RENEW);
        assertThat(durationDefault(properties, "leasehold.lease.default-wait")).isEqualTo(LockOptions.DEFAULT_WAIT);
        assertThat(properties.get("management.health.leasehold.enabled").getDefaultValue())
                .as("the health indicator is on unless turned off")
                .isEqualTo(true);
        assertThat(properties.get("leasehold.lease.max-hold-time").getDefaultValue())
                .as("no bound by default")
                .isNull();
    }

    private static Duration durationDefault(Map<String, ConfigurationMetadataProperty> properties, String name) {
        Object value = properties.get(name).getDefaultValue();
        assertThat(value).as(name).isInstanceOf(String.class);
        return DurationStyle.detectAndParse((String) value);
    }
}
