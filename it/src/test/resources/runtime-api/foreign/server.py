#!/usr/bin/env python3
"""A foreign sandbox for Dockyard's runtime-API end-to-end tests (stdlib only, no network needed).

Started through POST /runtime-api/start with its command given by the test, it serves what an
OpenHands agent server would, as far as the control plane's proxy is concerned:

  60000 (the runtime's url)
    GET /alive, /health, /ready, /server_info   no key needed
    every other path                            X-Session-API-Key must equal $SESSION_API_KEY, else 401
                                                {"detail": "Invalid API Key"} (like the agent server)
    GET /whoami    the key received, $SESSION_API_KEY, $OH_SESSION_API_KEYS_0, uid, gid, cwd, IT_* env
    GET /seen      every request any port received so far (method, target, headers)
    GET /big       10 MiB, chunked, byte i = (i * 31 + 7) % 251
    GET /ws        WebSocket: sends "ready:<uid>", then echoes text frames as "echo:<text>"
    GET /sockets/events/<id>   the same WebSocket signed in as the agent server's event stream is
                   (sockets.py): no key on the handshake; the first message must be
                   {"type": "auth", "session_api_key": $SESSION_API_KEY}, answered "signed-in",
                   else closed with 4001. It sends "ready:<uid>" before that, so that a test sees
                   whether the proxy holds it back until the client signed in
  12000, 12001, 60001 (work-1, work-2, vscode)
    GET any path   an HTML page naming the port and the request target it received
"""
import base64
import hashlib
import hmac
import html
import json
import os
import signal
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

BIG_SIZE = 10 * 1024 * 1024
_PATTERN = bytes((i * 31 + 7) % 251 for i in range(251))
BIG = (_PATTERN * (BIG_SIZE // len(_PATTERN) + 1))[:BIG_SIZE]
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
NAMES = {12000: "work-1", 12001: "work-2", 60001: "vscode"}
STARTED = time.time()
SEEN = []
SEEN_LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "it-foreign/1"

    def log_message(self, fmt, *args):
        # no request targets or headers in the logs: they may carry keys
        sys.stderr.write("%s %s\n" % (self.server.server_address[1], self.command))

    def record(self):
        with SEEN_LOCK:
            SEEN.append({"port": self.server.server_address[1], "method": self.command, "target": self.path,
                         "headers": [[name, value] for name, value in self.headers.items()]})

    def send_body(self, status, content_type, body):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status, value):
        self.send_body(status, "application/json", json.dumps(value).encode())

    def authorized(self):
        expected = os.environ.get("SESSION_API_KEY", "")
        received = self.headers.get("X-Session-API-Key", "")
        return expected != "" and hmac.compare_digest(expected.encode(), received.encode())


class MainHandler(Handler):
    """Port 60000: the agent server's place."""

    def do_GET(self):
        self.record()
        path = urlsplit(self.path).path
        if path in ("/alive", "/health"):
            return self.send_json(200, {"status": "ok"})
        if path == "/ready":
            return self.send_json(200, {"status": "ready"})
        if path == "/server_info":
            return self.send_json(200, {"uptime": time.time() - STARTED})
        if path.startswith("/sockets/events/"):
            return self.websocket(first_message_auth=True)
        if not self.authorized():
            return self.send_json(401, {"detail": "Invalid API Key"})
        if path == "/whoami":
            return self.send_json(200, {
                "key": self.headers.get("X-Session-API-Key"),
                "env_key": os.environ.get("SESSION_API_KEY"),
                "oh_key": os.environ.get("OH_SESSION_API_KEYS_0"),
                "uid": os.getuid(),
                "gid": os.getgid(),
                "groups": sorted(os.getgroups()),
                "cwd": os.getcwd(),
                "env": {k: v for k, v in os.environ.items()
                        if k.startswith("IT_") or k in ("RUNTIME_ID", "RUNTIME_URL")},
            })
        if path == "/seen":
            with SEEN_LOCK:
                seen = list(SEEN)
            return self.send_json(200, seen)
        if path == "/big":
            return self.big()
        if path == "/ws":
            return self.websocket()
        return self.send_json(404, {"detail": "no such path"})

    def do_POST(self):
        self.record()
        length = int(self.headers.get("Content-Length", "0") or "0")
        if length:
            self.rfile.read(length)
        if not self.authorized():
            return self.send_json(401, {"detail": "Invalid API Key"})
        return self.send_json(404, {"detail": "no such path"})

    def big(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        view = memoryview(BIG)
        for offset in range(0, BIG_SIZE, 65536):
            chunk = view[offset:offset + 65536]
            self.wfile.write(b"%x\r\n" % len(chunk))
            self.wfile.write(chunk)
            self.wfile.write(b"\r\n")
        self.wfile.write(b"0\r\n\r\n")

    # ------------------------------------------------------------------ WebSocket (RFC 6455, text frames)

    def websocket(self, first_message_auth=False):
        key = self.headers.get("Sec-WebSocket-Key", "").strip()
        if self.headers.get("Upgrade", "").lower() != "websocket" or not key:
            return self.send_json(400, {"detail": "not a WebSocket upgrade"})
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        self.send_response(101, "Switching Protocols")
        self.send_header("Upgrade", "websocket")
        self.send_header("Connection", "Upgrade")
        self.send_header("Sec-WebSocket-Accept", accept)
        self.end_headers()
        self.close_connection = True
        self.send_frame(0x1, ("ready:%d" % os.getuid()).encode())
        if first_message_auth:
            frame = self.read_frame()
            try:
                sign_in = json.loads(bytes(frame[2]).decode()) if frame and frame[1] == 0x1 else {}
            except ValueError:
                sign_in = {}
            expected = os.environ.get("SESSION_API_KEY", "")
            given = sign_in.get("session_api_key") if isinstance(sign_in, dict) else None
            if sign_in.get("type") != "auth" or not isinstance(given, str) or expected == "" \
                    or not hmac.compare_digest(expected.encode(), given.encode()):
                self.send_frame(0x8, struct.pack("!H", 4001) + b"Authentication failed")
                return
            self.send_frame(0x1, b"signed-in")
        message, kind = bytearray(), 0x1
        while True:
            frame = self.read_frame()
            if frame is None:
                return
            fin, opcode, payload = frame
            if opcode == 0x8:
                self.send_frame(0x8, bytes(payload[:2]))
                return
            if opcode == 0x9:
                self.send_frame(0xA, bytes(payload))
                continue
            if opcode == 0xA:
                continue
            if opcode in (0x1, 0x2):
                message, kind = bytearray(payload), opcode
            else:
                message += payload
            if fin:
                self.send_frame(kind, (b"echo:" if kind == 0x1 else b"") + bytes(message))

    def read_exact(self, n):
        data = self.rfile.read(n)
        if data is None or len(data) < n:
            raise EOFError
        return data

    def read_frame(self):
        try:
            first, second = self.read_exact(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack("!H", self.read_exact(2))[0]
            elif length == 127:
                length = struct.unpack("!Q", self.read_exact(8))[0]
            if not second & 0x80:
                # a client must mask every frame (RFC 6455 5.1): protocol error
                self.send_frame(0x8, struct.pack("!H", 1002))
                return None
            mask = self.read_exact(4)
            payload = bytearray(self.read_exact(length))
            for i in range(length):
                payload[i] ^= mask[i % 4]
            return bool(first & 0x80), first & 0x0F, payload
        except (EOFError, ConnectionError, OSError):
            return None

    def send_frame(self, opcode, payload):
        header = bytearray([0x80 | opcode])
        n = len(payload)
        if n < 126:
            header.append(n)
        elif n < 65536:
            header.append(126)
            header += struct.pack("!H", n)
        else:
            header.append(127)
            header += struct.pack("!Q", n)
        self.wfile.write(bytes(header) + payload)


class PageHandler(Handler):
    """Ports 12000, 12001 and 60001: a page saying which port served which request target."""

    def do_GET(self):
        self.record()
        name = NAMES.get(self.server.server_address[1], "?")
        page = "<!doctype html><title>%s</title><p id=\"target\">target=%s</p>" % (name, html.escape(self.path))
        self.send_body(200, "text/html; charset=utf-8", page.encode())


def serve(port, handler):
    server = ThreadingHTTPServer(("0.0.0.0", port), handler)
    server.daemon_threads = True
    return server


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    for port in (12000, 12001, 60001):
        threading.Thread(target=serve(port, PageHandler).serve_forever, daemon=True).start()
    serve(60000, MainHandler).serve_forever()
