package dev.dockyard.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.Components;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.Paths;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

/**
 * Finishes the OpenAPI document ({@code /openapi}) Liberty builds from the JAX-RS resources and
 * {@code META-INF/openapi.yaml} (registered as {@code mp.openapi.filter}):
 * <ul>
 * <li>the scanner puts every resource of the WAR under one application's path (any of the three,
 * from one start to the next), so each path moves to where it is served: the operations of
 * OpenHands' Remote Runtime API (tagged {@value #RUNTIME_API_TAG}) under {@code /runtime-api}, the
 * others under {@code /api/v1};</li>
 * <li>E2B's API ({@code /e2b}) is not scanned at all ({@code mp.openapi.scan.exclude.packages}):
 * E2B publishes its own document, which its SDKs are generated from, and its errors are not problems;</li>
 * <li>every operation gets its error answers: {@code 401} and the {@code 4XX}/{@code 5XX} ranges
 * as {@code application/problem+json}, and the Problem schema lists every problem type URI
 * ({@link Problem.Kind}), so the document cannot drift from the code.</li>
 * </ul>
 */
public class ApiDocumentFilter implements OASFilter {

    /** The tag on {@code RemoteRuntimeResource}: operations carrying it are the runtime API's. */
    public static final String RUNTIME_API_TAG = "OpenHands Remote Runtime API";
    static final String API_PATH = "/api/v1";
    static final String E2B_API_PATH = "/e2b";
    static final String RUNTIME_API_PATH = "/runtime-api";
    /** Problem.MEDIA_TYPE as text (its toString needs a JAX-RS runtime, which this filter may run without). */
    static final String PROBLEM_MEDIA_TYPE = "application/problem+json";
    private static final String PROBLEM_SCHEMA = "#/components/schemas/Problem";
    private static final String PROBLEM_RESPONSE = "#/components/responses/";

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        moveRuntimeApi(openAPI.getPaths());
        Components components = openAPI.getComponents();
        Schema problem = components.getSchemas().get("Problem");
        if (problem != null) {
            List<Object> types = new ArrayList<>();
            for (Problem.Kind kind : Problem.Kind.values()) {
                types.add(kind.type());
            }
            problem.getProperties().get("type").setEnumeration(types);
        }
        components.addResponse("Unauthorized", problemAnswer("no X-API-Key header, or an unknown key"));
        components.addResponse("ClientError",
                problemAnswer("the request was refused: invalid input (400), not allowed (403), unknown or "
                        + "someone else's id (404), a conflict (409), quota or capacity (429)..."));
        components.addResponse("ServerError", problemAnswer("the sandbox, its node or the control plane failed"));
        if (openAPI.getPaths() != null) {
            openAPI.getPaths().getPathItems().values().forEach(item ->
                    item.getOperations().values().forEach(ApiDocumentFilter::addProblemAnswers));
        }
    }

    /**
     * Puts each scanned path under the application that serves it: the runtime API's (tagged) under
     * {@code /runtime-api}, the rest under {@code /api/v1}, merged with what openapi.yaml says there.
     */
    private static void moveRuntimeApi(Paths paths) {
        if (paths == null) {
            return;
        }
        for (Map.Entry<String, PathItem> entry : Map.copyOf(paths.getPathItems()).entrySet()) {
            String relative = relative(entry.getKey());
            if (relative == null) {
                continue;
            }
            boolean runtimeApi = tagged(entry.getValue(), RUNTIME_API_TAG);
            String target = (runtimeApi ? RUNTIME_API_PATH : API_PATH) + relative;
            if (target.equals(entry.getKey())) {
                continue;
            }
            paths.removePathItem(entry.getKey());
            PathItem existing = paths.getPathItem(target);
            if (existing == null) {
                paths.addPathItem(target, entry.getValue());
            } else {
                merge(entry.getValue(), existing);
            }
        }
    }

    private static boolean tagged(PathItem item, String tag) {
        return item.getOperations().values().stream().anyMatch(o -> o.getTags() != null && o.getTags().contains(tag));
    }

    private static String relative(String path) {
        for (String root : List.of(API_PATH, RUNTIME_API_PATH, E2B_API_PATH)) {
            if (path.startsWith(root + "/")) {
                return path.substring(root.length());
            }
        }
        return null;
    }

    /** The scanned operations into the described ones: what the description lacks (parameters, a whole method). */
    private static void merge(PathItem scanned, PathItem described) {
        scanned.getOperations().forEach((method, operation) -> {
            Operation mine = described.getOperations().get(method);
            if (mine == null) {
                described.setOperation(method, operation);
                return;
            }
            if (mine.getParameters() == null && operation.getParameters() != null) {
                mine.setParameters(operation.getParameters());
            }
            if (mine.getRequestBody() == null) {
                mine.setRequestBody(operation.getRequestBody());
            }
        });
        if (described.getParameters() == null && scanned.getParameters() != null) {
            described.setParameters(scanned.getParameters());
        }
    }

    private static void addProblemAnswers(Operation operation) {
        APIResponses responses = operation.getResponses();
        if (responses == null) {
            responses = OASFactory.createAPIResponses();
            operation.setResponses(responses);
        }
        addIfAbsent(responses, "401", "Unauthorized");
        addIfAbsent(responses, "4XX", "ClientError");
        addIfAbsent(responses, "5XX", "ServerError");
    }

    private static void addIfAbsent(APIResponses responses, String code, String component) {
        if (!responses.hasAPIResponse(code)) {
            responses.addAPIResponse(code, OASFactory.createAPIResponse().ref(PROBLEM_RESPONSE + component));
        }
    }

    private static APIResponse problemAnswer(String description) {
        return OASFactory.createAPIResponse().description(description)
                .content(OASFactory.createContent().addMediaType(PROBLEM_MEDIA_TYPE,
                        OASFactory.createMediaType().schema(OASFactory.createSchema().ref(PROBLEM_SCHEMA))));
    }
}
