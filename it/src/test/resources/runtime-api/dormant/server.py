"""A dormant server following the deferred-init contract of OpenHands' agent server
(openhands/agent_server/init_router.py): with OH_DEFERRED_INIT=true it starts dormant, answers
/alive and GET /api/init, refuses every other /api route with 503 until POST /api/init (header
X-Init-API-Key = OH_SECRET_KEY) delivers session_api_keys and env; a second init is a 400.
GET /api/whoami (X-Session-API-Key one of the keys) reports what the test checks: how many inits it
took, how many session keys it had at boot, and a variable the init's env set."""
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
            return self.answer(200, {"inits": STATE["inits"], "bootKeys": len(BOOT_KEYS),
                                     "keys": len(STATE["keys"]), "canary": os.environ.get("IT_CANARY"),
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


ThreadingHTTPServer(("0.0.0.0", 60000), Handler).serve_forever()
