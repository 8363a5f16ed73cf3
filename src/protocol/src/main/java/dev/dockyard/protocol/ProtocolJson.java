package dev.dockyard.protocol;

import jakarta.json.JsonArray;
import jakarta.json.JsonArrayBuilder;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonObjectBuilder;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import jakarta.json.spi.JsonProvider;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps actions and observations to and from the OpenHands dicts of PROTOCOL.md.
 *
 * <p>Action dict: {@code {"action": TYPE, "args": {...}, "timeout": s}}; unknown keys in
 * {@code args} are ignored, absent ones take the protocol's defaults. Observation dict:
 * {@code {"observation": TYPE, "content", "extras": {...}, "message", "success"?}}.
 */
public final class ProtocolJson {

    /** Looked up once: {@code Json.create...} looks the provider up (a service loader scan) on every call. */
    private static final JsonProvider JSON = JsonProvider.provider();

    private ProtocolJson() {
    }

    // ---------------------------------------------------------------- actions

    /** Reads an action dict; throws {@link InvalidActionException} when it breaks the protocol. */
    public static Action actionFromJson(JsonObject json) {
        if (json == null) {
            throw new InvalidActionException("An action dict is required");
        }
        String typeName = requiredString(json, "action", "action");
        ActionType type = ActionType.fromWireName(typeName)
                .orElseThrow(() -> new UnknownActionException(typeName));
        JsonObject args = json.containsKey("args") && json.get("args").getValueType() != JsonValue.ValueType.NULL
                ? objectOrFail(json.get("args"), "args") : JsonValue.EMPTY_JSON_OBJECT;
        Double timeout = optionalDouble(json, "timeout", "timeout");
        if (timeout == null) {
            timeout = optionalDouble(args, "timeout", "args.timeout");
        }
        if (timeout != null && !(timeout > 0)) {
            throw new InvalidActionException("timeout must be a positive number of seconds");
        }
        SecurityRisk risk = args.containsKey("security_risk") && !args.isNull("security_risk")
                ? SecurityRisk.fromWireValue(intArg(args, "security_risk", -1)) : SecurityRisk.UNKNOWN;
        return switch (type) {
            case RUN -> new CmdRunAction(stringArg(args, "command", ""), boolArg(args, "is_input", false),
                    stringArg(args, "thought", ""), boolArg(args, "blocking", false),
                    boolArg(args, "is_static", false), stringArg(args, "cwd", null),
                    boolArg(args, "hidden", false), risk, timeout);
            case READ -> new FileReadAction(requiredString(args, "path", "args.path"), intArg(args, "start", 0),
                    intArg(args, "end", -1), intListArg(args, "view_range"),
                    stringArg(args, "impl_source", "default"), risk, timeout);
            case WRITE -> new FileWriteAction(requiredString(args, "path", "args.path"),
                    textArg(args, "content"), intArg(args, "start", 0), intArg(args, "end", -1),
                    risk, timeout);
            case EDIT -> new FileEditAction(requiredString(args, "path", "args.path"),
                    stringArg(args, "command", null), stringArg(args, "file_text", null),
                    stringArg(args, "old_str", null), stringArg(args, "new_str", null),
                    args.containsKey("insert_line") && !args.isNull("insert_line")
                            ? intArg(args, "insert_line", 0) : null,
                    intListArg(args, "view_range"), stringArg(args, "content", null),
                    intArg(args, "start", 1), intArg(args, "end", -1),
                    stringArg(args, "impl_source", "oh_aci"), risk, timeout);
            case RUN_IPYTHON -> new IPythonRunCellAction(stringArg(args, "code", ""),
                    stringArg(args, "thought", ""), boolArg(args, "include_extra", true),
                    stringArg(args, "kernel_init_code", ""), risk, timeout);
            case BROWSE -> new BrowseUrlAction(requiredString(args, "url", "args.url"), risk, timeout);
            case BROWSE_INTERACTIVE -> new BrowseInteractiveAction(
                    stringArg(args, "browser_actions", ""), risk, timeout);
        };
    }

    public static JsonObject toJson(Action action) {
        JsonObjectBuilder args = JSON.createObjectBuilder();
        if (action instanceof CmdRunAction a) {
            args.add("command", a.command()).add("is_input", a.isInput()).add("thought", a.thought())
                    .add("blocking", a.blocking()).add("is_static", a.isStatic()).add("hidden", a.hidden());
            addNullable(args, "cwd", a.cwd());
        } else if (action instanceof FileReadAction a) {
            args.add("path", a.path()).add("start", a.start()).add("end", a.end())
                    .add("impl_source", a.implSource());
            addIntList(args, "view_range", a.viewRange());
        } else if (action instanceof FileWriteAction a) {
            args.add("path", a.path()).add("content", JsonBytes.string(a.text())).add("start", a.start())
                    .add("end", a.end());
        } else if (action instanceof FileEditAction a) {
            args.add("path", a.path()).add("start", a.start()).add("end", a.end())
                    .add("impl_source", a.implSource());
            addNullable(args, "command", a.command());
            addNullable(args, "file_text", a.fileText());
            addNullable(args, "old_str", a.oldStr());
            addNullable(args, "new_str", a.newStr());
            addNullable(args, "content", a.content());
            if (a.insertLine() != null) {
                args.add("insert_line", a.insertLine());
            }
            addIntList(args, "view_range", a.viewRange());
        } else if (action instanceof IPythonRunCellAction a) {
            args.add("code", a.code()).add("thought", a.thought())
                    .add("include_extra", a.includeExtra()).add("kernel_init_code", a.kernelInitCode());
        } else if (action instanceof BrowseUrlAction a) {
            args.add("url", a.url());
        } else if (action instanceof BrowseInteractiveAction a) {
            args.add("browser_actions", a.browserActions());
        }
        args.add("security_risk", action.securityRisk().wireValue());
        JsonObjectBuilder dict = JSON.createObjectBuilder()
                .add("action", action.type().wireName())
                .add("args", args);
        if (action.timeout() != null) {
            dict.add("timeout", action.timeout());
        }
        return dict.build();
    }

    // ----------------------------------------------------------- observations

    public static JsonObject toJson(Observation observation) {
        JsonObjectBuilder extras = JSON.createObjectBuilder();
        if (observation instanceof CmdOutputObservation o) {
            extras.add("command", o.command()).add("hidden", o.hidden())
                    .add("metadata", metadataToJson(o.metadata()));
        } else if (observation instanceof FileReadObservation o) {
            addNullable(extras, "path", o.path());
            extras.add("impl_source", o.implSource());
        } else if (observation instanceof FileWriteObservation o) {
            addNullable(extras, "path", o.path());
        } else if (observation instanceof FileEditObservation o) {
            addNullable(extras, "path", o.path());
            extras.add("prev_exist", o.prevExist());
            addNullable(extras, "old_content", o.oldContent());
            addNullable(extras, "new_content", o.newContent());
            extras.add("impl_source", o.implSource());
            addNullable(extras, "diff", o.diff());
            // OpenHands' dataclass field, serialised as it is on the server: visualize_diff, which
            // fills it, runs only where the observation is shown (the agent's side)
            extras.addNull("_diff_cache");
        } else if (observation instanceof IPythonRunCellObservation o) {
            extras.add("code", o.code());
            // OpenHands' JupyterPlugin passes `image_urls if image_urls else None`
            if (o.imageUrls().isEmpty()) {
                extras.addNull("image_urls");
            } else {
                extras.add("image_urls", stringArray(o.imageUrls()));
            }
        } else if (observation instanceof BrowseObservation o) {
            // every field of OpenHands' BrowserOutputObservation, as dataclasses.asdict sends them
            extras.add("url", o.url()).add("trigger_by_action", o.triggerByAction()).add("screenshot", o.screenshot());
            addNullable(extras, "screenshot_path", o.screenshotPath());
            extras.add("set_of_marks", "").add("error", o.error())
                    .add("goal_image_urls", JsonValue.EMPTY_JSON_ARRAY)
                    .add("open_pages_urls", stringArray(o.openPagesUrls()))
                    .add("active_page_index", o.activePageIndex())
                    .add("dom_object", JsonValue.EMPTY_JSON_OBJECT)
                    .add("axtree_object", JsonValue.EMPTY_JSON_OBJECT)
                    .add("extra_element_properties", JsonValue.EMPTY_JSON_OBJECT)
                    .add("last_browser_action", o.lastBrowserAction())
                    .add("last_browser_action_error", o.lastBrowserActionError())
                    .add("focused_element_bid", o.focusedElementBid())
                    .add("filter_visible_only", false);
        } else if (observation instanceof ErrorObservation o) {
            extras.add("error_id", o.errorId());
        }
        // a file's text goes out as the bytes it was read as
        JsonValue content = observation instanceof FileReadObservation read ? JsonBytes.string(read.text())
                : JSON.createValue(observation.content());
        JsonObjectBuilder dict = JSON.createObjectBuilder()
                .add("observation", observation.type())
                .add("content", content)
                .add("extras", extras)
                .add("message", observation.message());
        if (observation.success() != null) {
            dict.add("success", observation.success());
        }
        return dict.build();
    }

    /** Reads an observation dict, e.g. one the control plane got back from an executor. */
    public static Observation observationFromJson(JsonObject json) {
        String type = requiredString(json, "observation", "observation");
        String content = stringArg(json, "content", "");
        JsonObject extras = json.containsKey("extras") && !json.isNull("extras")
                ? objectOrFail(json.get("extras"), "extras") : JsonValue.EMPTY_JSON_OBJECT;
        return switch (type) {
            case "run" -> new CmdOutputObservation(content, stringArg(extras, "command", ""),
                    boolArg(extras, "hidden", false),
                    extras.containsKey("metadata") && !extras.isNull("metadata")
                            ? metadataFromJson(objectOrFail(extras.get("metadata"), "extras.metadata"))
                            : CmdOutputMetadata.unknown());
            case "read" -> new FileReadObservation(textArg(json, "content"), stringArg(extras, "path", null),
                    stringArg(extras, "impl_source", "default"));
            case "write" -> new FileWriteObservation(content, stringArg(extras, "path", null));
            case "edit" -> new FileEditObservation(content, stringArg(extras, "path", null),
                    boolArg(extras, "prev_exist", false), stringArg(extras, "old_content", null),
                    stringArg(extras, "new_content", null), stringArg(extras, "impl_source", "oh_aci"),
                    stringArg(extras, "diff", null));
            case "run_ipython" -> new IPythonRunCellObservation(content, stringArg(extras, "code", ""),
                    stringListArg(extras, "image_urls"));
            case "browse" -> new BrowseObservation(content, stringArg(extras, "url", ""),
                    stringArg(extras, "trigger_by_action", "browse"), stringArg(extras, "screenshot", ""),
                    stringArg(extras, "screenshot_path", null), boolArg(extras, "error", false),
                    stringListArg(extras, "open_pages_urls"), intArg(extras, "active_page_index", -1),
                    stringArg(extras, "focused_element_bid", ""), stringArg(extras, "last_browser_action", ""),
                    stringArg(extras, "last_browser_action_error", ""));
            case "error" -> new ErrorObservation(content, stringArg(extras, "error_id", ""));
            default -> throw new InvalidActionException("Unknown observation type: " + type);
        };
    }

    public static JsonObject metadataToJson(CmdOutputMetadata m) {
        JsonObjectBuilder b = JSON.createObjectBuilder().add("exit_code", m.exitCode()).add("pid", m.pid());
        addNullable(b, "username", m.username());
        addNullable(b, "hostname", m.hostname());
        addNullable(b, "working_dir", m.workingDir());
        addNullable(b, "py_interpreter_path", m.pyInterpreterPath());
        return b.add("prefix", m.prefix()).add("suffix", m.suffix()).build();
    }

    public static CmdOutputMetadata metadataFromJson(JsonObject m) {
        return new CmdOutputMetadata(intArg(m, "exit_code", -1), intArg(m, "pid", -1),
                stringArg(m, "username", null), stringArg(m, "hostname", null),
                stringArg(m, "working_dir", null), stringArg(m, "py_interpreter_path", null),
                stringArg(m, "prefix", ""), stringArg(m, "suffix", ""));
    }

    // ---------------------------------------------------------------- helpers

    private static JsonObject objectOrFail(JsonValue value, String name) {
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw new InvalidActionException(name + " must be an object");
        }
        return value.asJsonObject();
    }

    private static String requiredString(JsonObject o, String key, String name) {
        String value = stringArg(o, key, null);
        if (value == null) {
            throw new InvalidActionException(name + " is required");
        }
        return value;
    }

    private static String stringArg(JsonObject o, String key, String fallback) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v instanceof JsonString s) {
            return s.getString();
        }
        throw new InvalidActionException(key + " must be a string");
    }

    /** A string argument as the text it was read as (an empty one when absent or null). */
    private static Utf8Text textArg(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return Utf8Text.EMPTY;
        }
        if (v instanceof JsonString s) {
            return JsonBytes.text(s);
        }
        throw new InvalidActionException(key + " must be a string");
    }

    private static boolean boolArg(JsonObject o, String key, boolean fallback) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v.getValueType() == JsonValue.ValueType.TRUE) {
            return true;
        }
        if (v.getValueType() == JsonValue.ValueType.FALSE) {
            return false;
        }
        throw new InvalidActionException(key + " must be a boolean");
    }

    private static int intArg(JsonObject o, String key, int fallback) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return fallback;
        }
        if (v instanceof JsonNumber n && n.isIntegral()) {
            try {
                return n.intValueExact();
            } catch (ArithmeticException e) {
                throw new InvalidActionException(key + " is out of range");
            }
        }
        throw new InvalidActionException(key + " must be an integer");
    }

    private static Double optionalDouble(JsonObject o, String key, String name) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (v instanceof JsonNumber n) {
            return n.doubleValue();
        }
        throw new InvalidActionException(name + " must be a number");
    }

    private static List<Integer> intListArg(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (v == null || v.getValueType() == JsonValue.ValueType.NULL) {
            return null;
        }
        if (!(v instanceof JsonArray array)) {
            throw new InvalidActionException(key + " must be a list of integers");
        }
        List<Integer> result = new ArrayList<>();
        for (JsonValue item : array) {
            if (!(item instanceof JsonNumber n) || !n.isIntegral()) {
                throw new InvalidActionException(key + " must be a list of integers");
            }
            result.add(n.intValue());
        }
        return result;
    }

    private static List<String> stringListArg(JsonObject o, String key) {
        JsonValue v = o.get(key);
        if (!(v instanceof JsonArray array)) {
            return List.of();
        }
        return array.stream().filter(JsonString.class::isInstance)
                .map(s -> ((JsonString) s).getString()).toList();
    }

    private static void addNullable(JsonObjectBuilder b, String key, String value) {
        if (value == null) {
            b.addNull(key);
        } else {
            b.add(key, value);
        }
    }

    private static JsonArrayBuilder stringArray(List<String> values) {
        JsonArrayBuilder array = JSON.createArrayBuilder();
        values.forEach(array::add);
        return array;
    }

    private static void addIntList(JsonObjectBuilder b, String key, List<Integer> values) {
        if (values == null) {
            b.addNull(key);
        } else {
            JsonArrayBuilder array = JSON.createArrayBuilder();
            values.forEach(array::add);
            b.add(key, array);
        }
    }
}
