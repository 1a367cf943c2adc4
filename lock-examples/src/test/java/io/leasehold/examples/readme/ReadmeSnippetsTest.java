package io.leasehold.examples.readme;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The README's code blocks that name a snippet ({@code <!-- snippet: NAME ... -->} on the line before
 * the fence) must be verbatim copies of the regions of this module's test sources between the
 * markers {@code // README:NAME:begin} and {@code // README:NAME:end}; those sources compile in every
 * build and {@link ReadmeQuickStartsTest} runs them, so the README's code cannot rot.
 */
class ReadmeSnippetsTest {

    private static final Pattern MARKER = Pattern.compile("^\\s*// README:([a-z0-9-]+):(begin|end)\\s*$");
    private static final Pattern README_SNIPPET = Pattern.compile("^<!-- snippet: ([a-z0-9-]+)\\b.*-->\\s*$");

    private static Path moduleDir;
    private static Path readme;

    @BeforeAll
    static void locateFiles() {
        // Set by the module's surefire configuration; falls back to Surefire's default working directory.
        moduleDir = Path.of(System.getProperty("leasehold.examples.dir", "."))
                .toAbsolutePath()
                .normalize();
        readme = moduleDir.resolveSibling("README.md");
    }

    @Test
    void shouldFindTheQuickStartRegions() {
        assertThat(sourceRegions().keySet())
                .contains("java-quick-start", "jedis-quick-start", "jedis-pooled-quick-start", "kotlin-quick-start");
    }

    @Test
    void shouldHaveEveryReadmeSnippetVerbatimFromItsSource() {
        Map<String, Region> regions = sourceRegions();
        Map<String, Region> blocks = readmeBlocks();
        List<String> problems = new ArrayList<>();
        regions.forEach((name, region) -> {
            Region block = blocks.get(name);
            if (block == null) {
                problems.add("README.md has no block for snippet '" + name + "' (" + region.where(moduleDir)
                        + "): put '<!-- snippet: " + name + " -->' and a fenced copy of the region in README.md");
            } else {
                difference(name, block, region).ifPresent(problems::add);
            }
        });
        blocks.forEach((name, block) -> {
            if (!regions.containsKey(name)) {
                problems.add("README.md block '" + name + "' (" + block.where(moduleDir)
                        + ") has no source region: no '// README:" + name + ":begin' marker under "
                        + sourceRoots().stream().map(moduleDir::relativize).toList());
            }
        });
        assertThat(problems).as("README snippets out of date").isEmpty();
    }

    private static Optional<String> difference(String name, Region block, Region region) {
        int common = Math.min(block.lines().size(), region.lines().size());
        for (int i = 0; i < common; i++) {
            if (!block.lines().get(i).equals(region.lines().get(i))) {
                return Optional.of(mismatch(
                        name,
                        block,
                        region,
                        i,
                        block.lines().get(i),
                        region.lines().get(i)));
            }
        }
        if (block.lines().size() != region.lines().size()) {
            String readmeLine = common < block.lines().size() ? block.lines().get(common) : "(block ends)";
            String sourceLine = common < region.lines().size() ? region.lines().get(common) : "(region ends)";
            return Optional.of(mismatch(name, block, region, common, readmeLine, sourceLine));
        }
        return Optional.empty();
    }

    private static String mismatch(
            String name, Region block, Region region, int index, String readmeLine, String sourceLine) {
        return "README.md block '" + name + "' (" + block.where(moduleDir) + ") is not a verbatim copy of "
                + region.where(moduleDir) + "; first difference at line " + (index + 1) + " of the snippet:\n"
                + "    README: " + readmeLine + "\n"
                + "    source: " + sourceLine + "\n"
                + "  copy the lines between the README:" + name + " markers into the README's block";
    }

    /**
     * Where the snippets' sources live: this module's test sources, and the consumer modules' own
     * (the quick start for Jedis 6 and 7, which this module's Jedis 8 cannot compile).
     */
    private static List<Path> sourceRoots() {
        return List.of(moduleDir.resolve("src/test"), moduleDir.resolveSibling("lock-consumer-tests/src"));
    }

    /** Every marked region of the snippets' sources, by name. */
    private static Map<String, Region> sourceRegions() {
        Map<String, Region> regions = new LinkedHashMap<>();
        for (Path root : sourceRoots()) {
            try (Stream<Path> files = Files.walk(root)) {
                for (Path file : files.filter(f ->
                                f.toString().endsWith(".java") || f.toString().endsWith(".kt"))
                        .toList()) {
                    regionsOf(file, regions);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return regions;
    }

    private static void regionsOf(Path file, Map<String, Region> regions) throws IOException {
        List<String> lines = Files.readAllLines(file);
        String open = null;
        int start = 0;
        for (int i = 0; i < lines.size(); i++) {
            Matcher marker = MARKER.matcher(lines.get(i));
            if (!marker.matches()) {
                continue;
            }
            String name = marker.group(1);
            if (marker.group(2).equals("begin")) {
                assertThat(open)
                        .as("%s:%d opens '%s' inside '%s'", file, i + 1, name, open)
                        .isNull();
                open = name;
                start = i + 1;
            } else {
                assertThat(name)
                        .as("%s:%d closes a region that is not open", file, i + 1)
                        .isEqualTo(open);
                Region previous = regions.put(name, new Region(file, start + 1, lines.subList(start, i)));
                assertThat(previous)
                        .as("region '%s' marked twice: %s and %s", name, previous, file)
                        .isNull();
                open = null;
            }
        }
        assertThat(open).as("%s: region '%s' has no end marker", file, open).isNull();
    }

    /** Every README code block that names a snippet, by name. */
    private static Map<String, Region> readmeBlocks() {
        List<String> lines;
        try {
            lines = Files.readAllLines(readme);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, Region> blocks = new LinkedHashMap<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher snippet = README_SNIPPET.matcher(lines.get(i));
            if (!snippet.matches()) {
                continue;
            }
            String name = snippet.group(1);
            int fence = i + 1;
            assertThat(fence < lines.size() && lines.get(fence).startsWith("```"))
                    .as("README.md:%d: snippet '%s' must be followed by a fenced code block", i + 1, name)
                    .isTrue();
            int end = fence + 1;
            while (end < lines.size() && !lines.get(end).startsWith("```")) {
                end++;
            }
            assertThat(end)
                    .as("README.md:%d: the block of snippet '%s' is never closed", fence + 1, name)
                    .isLessThan(lines.size());
            Region previous = blocks.put(name, new Region(readme, fence + 2, lines.subList(fence + 1, end)));
            assertThat(previous).as("README.md names snippet '%s' twice", name).isNull();
        }
        return blocks;
    }

    /** Lines of a file, the first of them at {@code firstLine} (1-based). */
    private record Region(Path file, int firstLine, List<String> lines) {

        String where(Path base) {
            Path shown = file.startsWith(base.getParent()) ? base.getParent().relativize(file) : file;
            return shown + " lines " + firstLine + "-" + (firstLine + lines.size() - 1);
        }
    }
}
