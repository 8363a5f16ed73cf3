package dev.dockyard.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.ProtocolJson;
import dev.dockyard.protocol.SecurityRisk;
import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The analyzer measured on corpora: ordinary agent commands (at most 1% held at the default
 * confirm level) and dangerous ones (all held). The figures printed here are docs/security.md's.
 */
class SecurityAnalyzerCorpusTest {

    private final SecurityAnalyzer analyzer = new SecurityAnalyzer();

    @Test
    void shouldHoldAtMostOnePercentOfOrdinaryCommandsAndEveryDangerousOne() throws IOException {
        List<String> ordinary = corpus("security/ordinary-commands.txt");
        List<String> dangerous = corpus("security/dangerous-commands.txt");
        assertTrue(ordinary.size() >= 200, "ordinary corpus too small: " + ordinary.size());

        List<String> heldOrdinary = new ArrayList<>();
        int mediumOrdinary = 0;
        for (String command : ordinary) {
            Assessment a = assess(command);
            if (held(a)) {
                heldOrdinary.add(command + " → " + a.reasons());
            } else if (a.risk() == SecurityRisk.MEDIUM) {
                mediumOrdinary++;
            }
        }
        List<String> missedDangerous = new ArrayList<>();
        for (String command : dangerous) {
            Assessment a = assess(command);
            if (!held(a)) {
                missedDangerous.add(command + " → " + a.risk() + " " + a.reasons());
            }
        }
        double heldPercent = 100.0 * heldOrdinary.size() / ordinary.size();
        System.out.printf("analyzer corpus: ordinary %d, held %d (%.2f%%), MEDIUM %d; dangerous %d, held %d (%.1f%%)%n",
                ordinary.size(), heldOrdinary.size(), heldPercent, mediumOrdinary, dangerous.size(),
                dangerous.size() - missedDangerous.size(),
                100.0 * (dangerous.size() - missedDangerous.size()) / dangerous.size());
        heldOrdinary.forEach(h -> System.out.println("  held ordinary: " + h));
        missedDangerous.forEach(m -> System.out.println("  missed dangerous: " + m));

        assertTrue(heldPercent <= 1.0, "ordinary commands held: " + heldOrdinary);
        assertEquals(List.of(), missedDangerous);
    }

    @Test
    void shouldRateAnOrdinaryCommandInMicroseconds() throws IOException {
        List<String> commands = corpus("security/ordinary-commands.txt");
        commands.addAll(corpus("security/dangerous-commands.txt"));
        double corpusMicros = microsPerAssessment(commands.stream().map(SecurityAnalyzerCorpusTest::run).toList());
        double shortMicros = microsPerAssessment(List.of(run("ls -la"), run("cd /workspace && git status")));
        System.out.printf("analyzer: %.1f µs per assessment over the corpora (%d commands), %.1f µs for a short command%n",
                corpusMicros, commands.size(), shortMicros);
        // generous: the machine is shared; a regression to regex blow-ups costs milliseconds
        assertTrue(corpusMicros < 500, corpusMicros + " µs per assessment");
    }

    /**
     * The best of 10 rounds (after 15 of warm-up), so other load on the machine counts least: the
     * figure is ~40 µs against a bound of 500, and 70 rounds took 10 s of every build.
     */
    private double microsPerAssessment(List<JsonObject> dicts) {
        List<Action> actions = dicts.stream().map(ProtocolJson::actionFromJson).toList();
        int sink = 0;
        double best = Double.MAX_VALUE;
        for (int round = 0; round < 25; round++) {
            long start = System.nanoTime();
            for (int k = 0; k < 2000 / dicts.size() + 1; k++) {
                for (int i = 0; i < dicts.size(); i++) {
                    sink += analyzer.assess(actions.get(i), dicts.get(i)).reasons().size();
                }
            }
            double micros = (System.nanoTime() - start) / 1000.0 / ((2000 / dicts.size() + 1) * dicts.size());
            if (round >= 15) {
                best = Math.min(best, micros);
            }
        }
        assertTrue(sink >= 0);
        return best;
    }

    private Assessment assess(String command) {
        JsonObject dict = run(command);
        return analyzer.assess(ProtocolJson.actionFromJson(dict), dict);
    }

    private static boolean held(Assessment a) {
        return SecurityPolicy.DEFAULT.decide(a.risk()) != SecurityPolicy.Decision.ALLOW;
    }

    private static JsonObject run(String command) {
        return Json.createObjectBuilder().add("action", "run")
                .add("args", Json.createObjectBuilder().add("command", command)).build();
    }

    /** One command a line; "<<<" and ">>>" lines around a command spanning lines; "#" comments. */
    static List<String> corpus(String resource) throws IOException {
        List<String> commands = new ArrayList<>();
        try (InputStream in = SecurityAnalyzerCorpusTest.class.getClassLoader().getResourceAsStream(resource)) {
            assertTrue(in != null, resource + " missing");
            BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
            StringBuilder multi = null;
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                if (multi != null) {
                    if (line.equals(">>>")) {
                        commands.add(multi.toString());
                        multi = null;
                    } else {
                        multi.append(multi.isEmpty() ? "" : "\n").append(line);
                    }
                } else if (line.equals("<<<")) {
                    multi = new StringBuilder();
                } else if (!line.isBlank() && !line.startsWith("# ")) {
                    commands.add(line);
                }
            }
        }
        return commands;
    }
}
