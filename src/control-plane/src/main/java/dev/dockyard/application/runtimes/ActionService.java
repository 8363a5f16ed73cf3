package dev.dockyard.application.runtimes;

import dev.dockyard.agents.AgentCatalog;
import dev.dockyard.agents.AgentProfile;
import dev.dockyard.application.ExecutorOutages;
import dev.dockyard.application.Refused;
import dev.dockyard.audit.AuditEntry;
import dev.dockyard.audit.AuditTrail;
import dev.dockyard.config.DockyardConfig;
import dev.dockyard.jsonp.Jsonp;
import dev.dockyard.observability.DockyardMetrics;
import dev.dockyard.protocol.Action;
import dev.dockyard.protocol.ProtocolJson;
import dev.dockyard.runtime.SandboxRuntime;
import dev.dockyard.runtime.executor.ExecutorClient;
import dev.dockyard.security.Assessment;
import dev.dockyard.security.SecurityAnalyzer;
import dev.dockyard.security.SecurityPolicy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;

/**
 * Acting in a runtime: the action is read and its timeout bounded, rated by the security analyser,
 * decided by the agent's policy, forwarded to the sandbox's executor and audited, whatever the
 * outcome. Answers the observation dict verbatim (PROTOCOL.md).
 */
@ApplicationScoped
public class ActionService {

    /** The observation's member, unescaped: inside output text its quotes would be escaped. */
    private static final String EXIT_CODE = "\"exit_code\":";

    @Inject
    DockyardConfig config;

    @Inject
    ReadyRuntimes ready;

    @Inject
    SecurityAnalyzer analyzer;

    @Inject
    AgentCatalog agents;

    @Inject
    AuditTrail auditTrail;

    @Inject
    ExecutorClient executors;

    @Inject
    Clock clock;

    @Inject
    DockyardMetrics metrics = DockyardMetrics.unrecorded();

    @Inject
    ExecutorOutages outages = ExecutorOutages.unobserved();

    /**
     * Runs one action dict for {@code userId} in {@code runtime} and answers the observation's
     * bytes. {@code actionJson} is the dict as its client sent it (UTF-8): it goes on to the
     * executor as it came, and {@code actionDict} must be what was parsed from exactly those bytes
     * (the API's checked reader gives both), since the dict is what is checked and rated.
     *
     * @throws Refused when the action is invalid, too long, blocked, unconfirmed, or the runtime or
     *                 its executor cannot take it
     */
    public byte[] act(String userId, SandboxRuntime runtime, JsonObject actionDict, byte[] actionJson,
                      String requestId) {
        Action action = ProtocolJson.actionFromJson(actionDict);
        long received = System.nanoTime();
        try {
            Duration timeout = timeout(action.timeout(), config.actionTimeout(), config.maxActionTimeout());
            try (ReadyRuntimes.Admitted admitted = ready.admit(runtime)) {
                // the admitted runtime: woken if it slept, its executor perhaps at a new address
                return run(userId, admitted, action, actionDict, actionJson, timeout, requestId);
            }
        } finally {
            metrics.action(action.type(), Duration.ofNanos(System.nanoTime() - received));
        }
    }

    /** Within the runtime's gate: policy, audit, forward. */
    private byte[] run(String userId, ReadyRuntimes.Admitted admitted, Action action, JsonObject actionDict,
                       byte[] actionJson, Duration timeout, String requestId) {
        SandboxRuntime runtime = admitted.runtime();
        Assessment assessment = analyzer.assess(action, actionDict);
        AuditEntry.Decision decision = decide(userId, runtime, action, actionDict, assessment);
        ExecutorClient.RawAnswer answer;
        long started = System.nanoTime();
        try {
            answer = executors.execute(URI.create(runtime.executorUrl()), runtime.sessionKey(), actionJson, timeout,
                    requestId);
            if (admitted.resumedAfterRefusal(answer.status())) {
                // its node had paused it (a remote node): refused before anything ran, so sent once more
                answer = executors.execute(URI.create(runtime.executorUrl()), runtime.sessionKey(), actionJson, timeout,
                        requestId);
            }
        } catch (ExecutorClient.ExecutorUnreachableException e) {
            Refused refused = outages.refusal(runtime, e);
            // the status the caller gets: 503 while the executor is being recovered, else 502
            audit(userId, runtime, action, assessment, decision,
                    refused.reason() == Refused.Reason.EXECUTOR_UNAVAILABLE ? 503 : 502, null,
                    (System.nanoTime() - started) / 1_000_000, 0);
            throw refused;
        }
        audit(userId, runtime, action, assessment, decision, answer.status(), exitCode(answer.body()),
                (System.nanoTime() - started) / 1_000_000, answer.body().length);
        return switch (answer.status()) {
            case 200 -> answer.body();
            case 400 -> throw new Refused(Refused.Reason.INVALID_ACTION, detail(answer.text()));
            case 409 -> throw new Refused(Refused.Reason.REQUEST_ID_REUSED, detail(answer.text()));
            default -> throw answer.status() >= 500 ? outages.serverError(runtime, answer.status(), detail(answer.text()))
                    : new Refused(Refused.Reason.EXECUTOR_FAILED, "The executor answered " + answer.status()
                    + ": " + detail(answer.text()));
        };
    }

    /**
     * The hard timeout an action gets: its own (positive, checked by the protocol) up to the
     * maximum, else the default, itself never above the maximum.
     *
     * @throws Refused (INVALID_ACTION, with member {@code maximum}) when the action asks for more
     */
    static Duration timeout(Double requestedSeconds, Duration byDefault, Duration maximum) {
        if (requestedSeconds == null) {
            return byDefault.compareTo(maximum) > 0 ? maximum : byDefault;
        }
        if (!(requestedSeconds <= maximum.toSeconds())) {
            throw new Refused(Refused.Reason.INVALID_ACTION, "timeout must be at most " + maximum.toSeconds()
                    + " seconds (dockyard.actions.max-timeout-seconds), not " + requestedSeconds)
                    .with("maximum", Jsonp.createValue(maximum.toSeconds()));
        }
        return Duration.ofMillis((long) (requestedSeconds * 1000));
    }

    /** The observation's exit code, if it has one (inside output text the key would be escaped). */
    static Integer exitCode(byte[] observation) {
        // read as ISO-8859-1, a byte per character: the member's name is ASCII, UTF-8 never has an
        // ASCII byte inside a character, and String.indexOf is the JVM's vectorised search (a loop
        // over the bytes took 3 ms for a read's megabyte, JFR 2026-12-01; a look-behind regular
        // expression before it, 20-50 ms)
        String text = new String(observation, StandardCharsets.ISO_8859_1);
        int length = text.length();
        for (int at = text.indexOf(EXIT_CODE); at >= 0; at = text.indexOf(EXIT_CODE, at + 1)) {
            if (at > 0 && text.charAt(at - 1) == '\\') {
                continue;
            }
            int i = at + EXIT_CODE.length();
            while (i < length && (text.charAt(i) == ' ' || text.charAt(i) == '\t' || text.charAt(i) == '\n'
                    || text.charAt(i) == '\r')) {
                i++;
            }
            int start = i;
            if (i < length && text.charAt(i) == '-') {
                i++;
            }
            int digits = i;
            while (i < length && text.charAt(i) >= '0' && text.charAt(i) <= '9') {
                i++;
            }
            if (i > digits && i - digits <= 10) {
                try {
                    return Integer.valueOf(text.substring(start, i));
                } catch (NumberFormatException outOfRange) {
                    // no int: not an exit code, as the pattern before could not read one either
                }
            }
        }
        return null;
    }

    /** OpenHands' confirmation: {@code "confirmation_state": "confirmed"} on the action or in its args. */
    /**
     * The security policy's word on a command that runs outside the shell (the process API, where
     * a client starts {@code commandLine} itself): rated as a {@code run} action of that command
     * line, blocked or held for confirmation as that action would be, and audited as one, so the
     * agent's policy and the audit trail cover every way in.
     *
     * @throws Refused when the policy blocks it, or wants a confirmation not given
     */
    public void admitCommand(String userId, SandboxRuntime runtime, String commandLine, boolean confirmed) {
        var dict = Jsonp.createObjectBuilder().add("action", "run")
                .add("args", Jsonp.createObjectBuilder().add("command", commandLine));
        if (confirmed) {
            dict.add("confirmation_state", "confirmed");
        }
        JsonObject actionDict = dict.build();
        Action action = ProtocolJson.actionFromJson(actionDict);
        Assessment assessment = analyzer.assess(action, actionDict);
        AuditEntry.Decision decision = decide(userId, runtime, action, actionDict, assessment);
        audit(userId, runtime, action, assessment, decision, 200, null, 0, 0);
    }

    /** The policy's decision on an assessed action: blocked and awaiting confirmation are audited and thrown. */
    private AuditEntry.Decision decide(String userId, SandboxRuntime runtime, Action action, JsonObject actionDict,
                                       Assessment assessment) {
        SecurityPolicy policy = agents.find(runtime.agent()).map(AgentProfile::security).orElse(SecurityPolicy.DEFAULT);
        AuditEntry.Decision decision = AuditEntry.Decision.ALLOWED;
        switch (policy.decide(assessment.risk())) {
            case BLOCK -> {
                audit(userId, runtime, action, assessment, AuditEntry.Decision.BLOCKED, 403, null, 0, 0);
                throw refusal(Refused.Reason.ACTION_BLOCKED, "The security policy of agent '" + runtime.agent()
                        + "' blocks " + assessment.risk() + " risk actions", assessment);
            }
            case CONFIRM -> {
                if (!confirmed(actionDict)) {
                    audit(userId, runtime, action, assessment, AuditEntry.Decision.AWAITING_CONFIRMATION, 409, null,
                            0, 0);
                    throw refusal(Refused.Reason.CONFIRMATION_REQUIRED, "This action is rated " + assessment.risk()
                            + " risk; resubmit it with \"confirmation_state\": \"confirmed\" to run it", assessment);
                }
                decision = AuditEntry.Decision.CONFIRMED;
            }
            case ALLOW -> {
                // runs
            }
        }
        return decision;
    }

    private static boolean confirmed(JsonObject actionDict) {
        JsonObject args = actionDict.get("args") instanceof JsonObject a ? a : JsonValue.EMPTY_JSON_OBJECT;
        return "confirmed".equals(actionDict.getString("confirmation_state", null))
                || "confirmed".equals(args.getString("confirmation_state", null));
    }

    private static Refused refusal(Refused.Reason reason, String detail, Assessment assessment) {
        JsonArrayBuilder reasons = Jsonp.createArrayBuilder();
        assessment.reasons().forEach(reasons::add);
        return new Refused(reason, detail).with("risk", Jsonp.createValue(assessment.risk().name()))
                .with("securityRisk", Jsonp.createValue(assessment.risk().wireValue())).with("reasons", reasons.build());
    }

    private void audit(String userId, SandboxRuntime runtime, Action action, Assessment assessment,
                       AuditEntry.Decision decision, int status, Integer exitCode, long millis, long bytes) {
        metrics.decided(assessment.risk(), decision);
        auditTrail.record(new AuditEntry(clock.instant(), userId, runtime.id(), action.type().wireName(),
                assessment.risk().name(), String.join("; ", assessment.reasons()), decision, status, exitCode, millis,
                bytes));
    }

    /** The {@code detail} of an executor's problem answer, or the start of whatever it answered. */
    static String detail(String body) {
        try (var reader = Jsonp.createReader(new StringReader(body))) {
            return reader.readObject().getString("detail", body);
        } catch (RuntimeException e) {
            return body.length() > 500 ? body.substring(0, 500) : body;
        }
    }
}
