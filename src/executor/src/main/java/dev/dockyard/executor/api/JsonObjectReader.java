package dev.dockyard.executor.api;

import dev.dockyard.executor.Reply;
import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;

/**
 * JSON bodies read as JSON-P objects by the executor itself, so that any JAX-RS runtime serves the
 * resources without a JSON provider module of its own: Liberty's, or the embedded server's.
 */
@Consumes(MediaType.APPLICATION_JSON)
public class JsonObjectReader implements MessageBodyReader<JsonObject> {

    @Override
    public boolean isReadable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return type == JsonObject.class;
    }

    @Override
    public JsonObject readFrom(Class<JsonObject> type, Type genericType, Annotation[] annotations, MediaType mediaType,
                               MultivaluedMap<String, String> headers, InputStream entity) throws IOException {
        PushbackInputStream body = new PushbackInputStream(entity, 1);
        int first = body.read();
        if (first < 0) {
            // no body at all: the executor core's own default (e.g. list_files of the workspace)
            return null;
        }
        body.unread(first);
        try (JsonReader reader = Json.createReader(body)) {
            return reader.readObject();
        } catch (JsonException | IllegalStateException e) {
            throw new WebApplicationException(Replies.of(Reply.detail(400, "The body is not a JSON object")));
        }
    }
}
