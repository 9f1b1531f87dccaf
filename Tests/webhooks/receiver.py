#!/usr/bin/env python3
"""A webhook receiver for cardrender's tests, on 127.0.0.1.

Every message is verified with Standard Webhooks' own library (standardwebhooks, PyPI),
against the secrets in SECRETS (one per line, re-read on each request: the test writes the
endpoint's secret there once it has it). What the receiver answers is read from MODE on each
request: `ok` (204), `500`, `500 forged` (500 with a body that would forge a log line), or
`slow SECONDS` (answers 204 after that long, unless the sender closes the connection first:
then it logs "answered": -1 and answers nothing). Each request is appended to LOG as one JSON
line: {"id", "type", "subject", "status", "verified", "signatures", "answered", "at", "path"};
a slow answer also logs its arrival first, with "answered": 0.

    receiver.py PORT SECRETS MODE LOG
PORT 0 picks a free port; the port is printed on stdout's first line.
"""
import json
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook, WebhookVerificationError

port, secrets_path, mode_path, log_path = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
lock = threading.Lock()


def read(path, default):
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read().strip() or default
    except FileNotFoundError:
        return default


class Receiver(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length)
        headers = {name: value for name, value in self.headers.items()}
        verified = False
        for secret in read(secrets_path, "").split():
            try:
                Webhook(secret).verify(body, headers)
                verified = True
                break
            except WebhookVerificationError:
                continue
        mode = read(mode_path, "ok").split()
        try:
            message = json.loads(body)
        except ValueError:
            message = {}
        data = message.get("data") or {}

        def log(answered):
            line = {
                "id": self.headers.get("webhook-id"), "type": message.get("type"), "subject": data.get("id"),
                "status": data.get("status"), "verified": verified,
                "signatures": len((self.headers.get("webhook-signature") or "").split()), "answered": answered,
                "at": time.time(), "path": self.path,
            }
            with lock, open(log_path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(line) + "\n")

        if mode[0] == "slow":
            log(0)  # arrived: the sender now waits for the answer
            if self.sender_left(float(mode[1])):
                log(-1)
                self.close_connection = True
                return
        answered = 500 if mode[0] == "500" else (204 if verified else 400)
        log(answered)
        text = b"nope\r\nwebhook evt_forged to whe_x: delivered\x1b[0m" if mode[1:] == ["forged"] else b""
        self.send_response(answered)
        self.send_header("Content-Length", str(len(text)))
        self.end_headers()
        self.wfile.write(text)

    def sender_left(self, seconds):
        """Waits `seconds`, or until the sender closes the connection (True)."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            readable, _, _ = select.select([self.connection], [], [], max(0.0, min(0.1, deadline - time.time())))
            if readable:
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
                # Bytes of another request: not a close; wait the rest out.
                time.sleep(max(0.0, deadline - time.time()))
                return False
        return False

    def log_message(self, *arguments):
        pass


server = ThreadingHTTPServer(("127.0.0.1", port), Receiver)
print(server.server_address[1], flush=True)
server.serve_forever()
