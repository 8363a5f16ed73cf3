package it.dev.dockyard.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import jakarta.json.JsonValue;
import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PATCH;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.Application;
import java.io.File;
import java.io.StringReader;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The live OpenAPI document ({@code /openapi}) against the code: every JAX-RS resource method of
 * both applications (found by reflection over the classes of the WAR the server runs) appears with
 * its HTTP method and path, carries the X-API-Key security scheme and describes its problem+json
 * answers; {@code /openapi/ui} loads nothing from outside the control plane.
 */
class OpenApiIT {

    private static final String BASE = System.getProperty("dockyard.url", "http://127.0.0.1:19080");
    private static final List<String> APPLICATIONS = List.of("dev.dockyard.api.DockyardApplication",
            "dev.dockyard.runtimeapi.RuntimeApiApplication");
    private static final Map<Class<? extends Annotation>, String> HTTP_METHODS = Map.of(GET.class, "get",
            POST.class, "post", PUT.class, "put", DELETE.class, "delete", PATCH.class, "patch");
    /** {name: regex} in a JAX-RS template is {name} in OpenAPI. */
    private static final Pattern TEMPLATE_REGEX = Pattern.compile("\\{\\s*([\\w.-]+)\\s*:[^}]*}");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private static JsonObject document;

    @BeforeAll
    static void readDocument() throws Exception {
        HttpResponse<String> answer = get("/openapi?format=JSON");
        assertEquals(200, answer.statusCode(), answer.body());
        try (var reader = Json.createReader(new StringReader(answer.body()))) {
            document = reader.readObject();
        }
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(BASE + path)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** "post /api/v1/runtimes/{id}/actions" for every resource method of both applications. */
    private static Set<String> operationsInCode() throws Exception {
        File classes = new File(System.getProperty("dockyard.war-dir"), "WEB-INF/classes");
        List<URL> urls = new ArrayList<>(List.of(classes.toURI().toURL()));
        File[] jars = new File(System.getProperty("dockyard.war-dir"), "WEB-INF/lib").listFiles();
        for (File jar : jars == null ? new File[0] : jars) {
            urls.add(jar.toURI().toURL());
        }
        Set<String> operations = new TreeSet<>();
        try (URLClassLoader war = new URLClassLoader(urls.toArray(URL[]::new), OpenApiIT.class.getClassLoader())) {
            for (String name : APPLICATIONS) {
                Class<?> type = war.loadClass(name);
                String root = type.getAnnotation(ApplicationPath.class).value();
                Application application = (Application) type.getConstructor().newInstance();
                for (Class<?> resource : application.getClasses()) {
                    Path classPath = resource.getAnnotation(Path.class);
                    if (classPath == null) {
                        continue; // filters, exception mappers, body readers
                    }
                    for (Method method : resource.getMethods()) {
                        for (Map.Entry<Class<? extends Annotation>, String> http : HTTP_METHODS.entrySet()) {
                            if (method.isAnnotationPresent(http.getKey())) {
                                Path methodPath = method.getAnnotation(Path.class);
                                operations.add(http.getValue() + " " + join(root, classPath.value(),
                                        methodPath == null ? "" : methodPath.value()));
                            }
                        }
                    }
                }
            }
        }
        return operations;
    }

    private static String join(String... parts) {
        StringBuilder path = new StringBuilder();
        for (String part : parts) {
            for (String segment : part.split("/")) {
                if (!segment.isBlank()) {
                    path.append('/').append(segment.strip());
                }
            }
        }
        Matcher template = TEMPLATE_REGEX.matcher(path);
        return template.replaceAll("{$1}");
    }

    private static Set<String> operationsInDocument() {
        Set<String> operations = new TreeSet<>();
        document.getJsonObject("paths").forEach((path, item) -> item.asJsonObject().keySet().stream()
                .filter(HTTP_METHODS::containsValue).forEach(method -> operations.add(method + " " + path)));
        return operations;
    }

    @Test
    void shouldDescribeEveryResourceMethodOfBothApplications() throws Exception {
        Set<String> inCode = operationsInCode();
        assertTrue(inCode.size() > 40, "reflection found the resources: " + inCode);
        assertTrue(inCode.contains("post /runtime-api/start"), inCode.toString());
        assertTrue(inCode.contains("post /api/v1/runtimes/{id}/actions"), inCode.toString());
        Set<String> missing = new TreeSet<>(inCode);
        missing.removeAll(operationsInDocument());
        assertTrue(missing.isEmpty(), "operations missing from /openapi: " + missing);
        Set<String> invented = new TreeSet<>(operationsInDocument());
        invented.removeAll(inCode);
        assertTrue(invented.isEmpty(), "operations in /openapi the code does not serve: " + invented);
    }

    @Test
    void shouldDeclareTheApiKeySchemeForEveryCall() {
        JsonObject scheme = document.getJsonObject("components").getJsonObject("securitySchemes")
                .getJsonObject("ApiKey");
        assertEquals("apiKey", scheme.getString("type"));
        assertEquals("header", scheme.getString("in"));
        assertEquals("X-API-Key", scheme.getString("name"));
        assertTrue(document.getJsonArray("security").getJsonObject(0).containsKey("ApiKey"), document.toString());
    }

    @Test
    void shouldDescribeProblemAnswersOfEveryOperation() {
        JsonObject components = document.getJsonObject("components");
        List<JsonValue> types = components.getJsonObject("schemas").getJsonObject("Problem")
                .getJsonObject("properties").getJsonObject("type").getJsonArray("enum");
        assertTrue(types.contains(Json.createValue("https://dockyard.dev/problems/runtime-not-ready")), types.toString());
        document.getJsonObject("paths").forEach((path, item) -> item.asJsonObject().forEach((method, operation) -> {
            if (!HTTP_METHODS.containsValue(method)) {
                return;
            }
            JsonObject responses = operation.asJsonObject().getJsonObject("responses");
            for (String code : List.of("401", "4XX", "5XX")) {
                JsonObject response = responses.getJsonObject(code);
                assertTrue(response != null, method + " " + path + " has no " + code + " answer");
                if (response.containsKey("$ref")) {
                    String name = response.getString("$ref").substring("#/components/responses/".length());
                    response = components.getJsonObject("responses").getJsonObject(name);
                }
                JsonObject problem = response.getJsonObject("content").getJsonObject("application/problem+json");
                assertEquals("#/components/schemas/Problem", problem.getJsonObject("schema").getString("$ref"),
                        method + " " + path + " " + code);
            }
        }));
    }

    @Test
    void shouldCarryTheWalkThroughAsExamplesAndSchemas() {
        JsonObject paths = document.getJsonObject("paths");
        JsonObject provision = paths.getJsonObject("/api/v1/runtimes").getJsonObject("post");
        JsonObject body = provision.getJsonObject("requestBody").getJsonObject("content")
                .getJsonObject("application/json");
        assertEquals("#/components/schemas/ProvisionRequest", body.getJsonObject("schema").getString("$ref"));
        assertEquals("conv-42", body.getJsonObject("examples").getJsonObject("walkThrough").getJsonObject("value")
                .getString("conversationId"));
        assertEquals("#/components/schemas/Runtime", provision.getJsonObject("responses").getJsonObject("201")
                .getJsonObject("content").getJsonObject("application/json").getJsonObject("schema").getString("$ref"));
        // the scanned parameters survive the merge with the description
        assertTrue(provision.getJsonArray("parameters").stream()
                .anyMatch(p -> p.asJsonObject().getString("name").equals("Prefer")), provision.toString());
        JsonObject act = paths.getJsonObject("/api/v1/runtimes/{id}/actions").getJsonObject("post")
                .getJsonObject("requestBody").getJsonObject("content").getJsonObject("application/json");
        assertTrue(act.getJsonObject("examples").keySet().containsAll(Set.of("run", "write", "read")), act.toString());
        // read as a stream since 2026-12-01 (passed on as it came): still described as an action dict
        assertEquals("#/components/schemas/Action", act.getJsonObject("schema").getString("$ref"), act.toString());
        JsonObject acting = paths.getJsonObject("/api/v1/runtimes/{id}/actions").getJsonObject("post");
        assertTrue(acting.getJsonArray("parameters").stream()
                .noneMatch(p -> p.asJsonObject().getString("name").equalsIgnoreCase("Content-Length")), acting.toString());
        assertTrue(document.getJsonObject("components").getJsonObject("examples").getJsonObject("run")
                .getJsonObject("value").toString().contains("echo hello"));
    }

    @Test
    void shouldDescribeTheRuntimeApisBodiesUnderItsOwnPath() {
        JsonObject start = document.getJsonObject("paths").getJsonObject("/runtime-api/start").getJsonObject("post");
        assertEquals("#/components/schemas/RemoteStartRequest", start.getJsonObject("requestBody")
                .getJsonObject("content").getJsonObject("application/json").getJsonObject("schema").getString("$ref"));
        assertEquals("#/components/schemas/RemoteRuntime", start.getJsonObject("responses").getJsonObject("200")
                .getJsonObject("content").getJsonObject("application/json").getJsonObject("schema").getString("$ref"));
        assertFalse(document.getJsonObject("paths").containsKey("/api/v1/start"), "the runtime API is not under /api/v1");
    }

    @Test
    void shouldLeaveE2bsApiToE2bsOwnDocument() {
        // its SDKs are generated from E2B's OpenAPI document; its errors are {code, message}, not problems
        assertTrue(document.getJsonObject("paths").keySet().stream()
                .noneMatch(p -> p.startsWith("/e2b/") || p.endsWith("/sandboxes") || p.contains("/sandboxes/")),
                document.getJsonObject("paths").keySet().toString());
    }

    @Test
    void shouldServeTheUiWithoutLoadingAnythingFromOutside() throws Exception {
        HttpResponse<String> ui = get("/openapi/ui/");
        assertEquals(200, ui.statusCode());
        assertTrue(ui.body().contains("<html") || ui.body().contains("<!DOCTYPE"), ui.body());
        Matcher reference = Pattern.compile("(?:src|href)\\s*=\\s*[\"']([^\"']+)[\"']").matcher(ui.body());
        int references = 0;
        while (reference.find()) {
            references++;
            String target = reference.group(1);
            assertFalse(target.matches("(?i)^(https?:)?//.*"), "the UI loads " + target + " from outside");
            if (!target.startsWith("data:") && !target.startsWith("#")) {
                URI resolved = URI.create(BASE + "/openapi/ui/").resolve(target);
                assertEquals(200, get(resolved.getRawPath()).statusCode(), "UI asset " + resolved);
            }
        }
        assertTrue(references > 0, "the UI page names its assets: " + ui.body());
    }
}
