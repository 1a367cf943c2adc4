package io.leasehold.lock.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.leasehold.lock.testkit.InMemoryFixture;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The README's table of meters is the code's: every meter the code registers under real traffic is
 * in the table with its type and tag keys, and every row of the table is a meter the code registers.
 */
class ReadmeMetersTableTest {

    private static final Pattern BACKTICKED = Pattern.compile("`([^`]+)`");

    @Test
    void shouldListExactlyTheMetersTheCodeRegisters() throws Exception {
        Set<String> documented = readmeRows();
        Set<String> registered = registeredMeters();

        assertThat(documented)
                .as("README meters table (rows: name | type | tag keys)")
                .isNotEmpty();
        assertThat(registered)
                .as("meters in the code but not in the README table")
                .isSubsetOf(documented);
        assertThat(documented)
                .as("meters in the README table but not in the code")
                .isSubsetOf(registered);
    }

    /** "name | type | tag,keys" for each meter registered while every kind of event happened. */
    private static Set<String> registeredMeters() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (InMemoryFixture fixture = new InMemoryFixture();
                MetricsTraffic traffic = new MetricsTraffic(fixture, registry)) {
            traffic.uncontended("orders:1");
            traffic.contended("orders:2");
            traffic.lost("payments:1");
            traffic.uncertainThenBack("reports:1");
        }
        Set<String> rows = new TreeSet<>();
        for (Meter meter : registry.getMeters()) {
            Meter.Id id = meter.getId();
            String tags = id.getTags().stream().map(t -> t.getKey()).sorted().collect(Collectors.joining(","));
            rows.add(id.getName() + " | " + id.getType().name().toLowerCase(Locale.ROOT) + " | " + tags);
        }
        return rows;
    }

    /** The same form for each row of the README's meters table. */
    private static Set<String> readmeRows() throws Exception {
        Path readme = Path.of(System.getProperty("user.dir")).getParent().resolve("README.md");
        List<String> lines = Files.readAllLines(readme);
        int start = lines.indexOf("### Meters");
        assertThat(start).as("a '### Meters' section in %s", readme).isNotNegative();
        Set<String> rows = new TreeSet<>();
        for (String line : lines.subList(start, lines.size())) {
            if (line.startsWith("## ")) {
                break;
            }
            if (!line.startsWith("| `" + LeaseholdMeters.PREFIX)) {
                continue;
            }
            String[] cells = line.split("\\|");
            String name = backticked(cells[1]).get(0);
            String type = cells[2].trim();
            String tags = backticked(cells[3]).stream().sorted().collect(Collectors.joining(","));
            rows.add(name + " | " + type + " | " + tags);
        }
        return rows;
    }

    private static List<String> backticked(String cell) {
        List<String> found = new ArrayList<>();
        Matcher m = BACKTICKED.matcher(cell);
        while (m.find()) {
            found.add(m.group(1));
        }
        return found;
    }
}
