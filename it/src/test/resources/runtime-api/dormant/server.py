"""A dormant server following the deferred-init contract of OpenHands' agent server
(openhands/agent_server/init_router.py): with OH_DEFERRED_INIT=true it starts dormant, answers
/alive and GET /api/init, refuses every other /api route with 503 until POST /api/init (header
X-Init-API-Key = OH_SECRET_KEY) delivers session_api_keys and env; a second init is a 400.
GET /api/whoami (X-Session-API-Key one of the keys) reports what the test checks: how many inits it
took, how many session keys it had at boot and whether the init kept that key, a variable the init's
env set, and the ids it runs as.

Two rules of the real server that Dockyard must live with (issue 31):
- it binds to all interfaces only when it has a session key at boot, else to 127.0.0.1
  (openhands/agent_server/__main__.py: host = "0.0.0.0" if auth_enabled else _LOOPBACK_HOST), where
  Dockyard cannot reach it;
- uvicorn with httptools drops the body of a request that offers an upgrade to h2c, so such an init
  is refused with 422 "missing body"."""
import json
import os
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BOOT_KEYS = [os.environ[v] for v in ("SESSION_API_KEY", "OH_SESSION_API_KEYS_0") if os.environ.get(v)]
STATE = {
    "state": "dormant" if os.environ.get("OH_DEFERRED_INIT") == "true" else "ready",
    "keys": list(BOOT_KEYS),
    "inits": 0,
    "webhooks": [],
    "cors": [],
}


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/alive":
            return self.answer(200, {"status": "ok"})
        if self.path == "/api/init":
            return self.answer(200, {"state": STATE["state"]})
        if STATE["state"] != "ready":
            return self.answer(503, {"detail": "dormant: call POST /api/init first"})
        if self.headers.get("X-Session-API-Key") not in STATE["keys"]:
            return self.answer(401, {"detail": "unauthorized"})
        if self.path == "/api/whoami":
            return self.answer(200, {"inits": STATE["inits"], "bootKeys": len(set(BOOT_KEYS)),
                                     "keys": len(STATE["keys"]), "bootKeyKept": STATE["keys"] == BOOT_KEYS[:1],
                                     "uid": os.getuid(), "groups": os.getgroups(),
                                     "canary": os.environ.get("IT_CANARY"),
                                     "runtimeId": os.environ.get("RUNTIME_ID"),
                                     "webhooks": [w.get("base_url") for w in STATE["webhooks"]],
                                     "cors": STATE["cors"]})
        return self.answer(404, {"detail": "not found"})

    def do_POST(self):
        if self.path != "/api/init":
            return self.answer(404, {"detail": "not found"})
        if self.headers.get("X-Init-API-Key") != os.environ.get("OH_SECRET_KEY"):
            return self.answer(401, {"detail": "unauthorized"})
        if STATE["state"] != "dormant":
            return self.answer(400, {"detail": "server already in state: " + STATE["state"]})
        if self.headers.get("Upgrade"):
            return self.answer(422, {"detail": "missing body"})
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        STATE["keys"] = list(body.get("session_api_keys") or [])
        STATE["webhooks"] = list(body.get("webhooks") or [])
        STATE["cors"] = list(body.get("allow_cors_origins") or [])
        os.environ.update(body.get("env") or {})
        STATE["inits"] += 1
        STATE["state"] = "ready"
        return self.answer(200, {"state": "ready"})

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("0.0.0.0" if BOOT_KEYS else "127.0.0.1", 60000), Handler).serve_forever()
