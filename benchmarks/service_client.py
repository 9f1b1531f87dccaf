"""The postcard service's API as the benchmarks call it (service.sh, previews.sh): one API
key, a server on 127.0.0.1. `configure` first."""
import http.client
import json

port = None
key = None


def configure(server_port, api_key):
    """Sets the server's port and the API key every call sends."""
    global port, key
    port, key = int(server_port), api_key


def connect():
    """A new keep-alive connection to the server."""
    return http.client.HTTPConnection("127.0.0.1", port, timeout=120)


def call(connection, method, path, body=None, content_type="application/json"):
    """One request with the key: (status, body bytes)."""
    headers = {"Authorization": "Bearer " + key}
    if body is not None:
        headers["Content-Type"] = content_type
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()


def upload(path):
    """Uploads the photo at `path`: its id."""
    with open(path, "rb") as file:
        status, data = call(connect(), "POST", "/v1/photos", file.read(), "application/octet-stream")
    assert status in (200, 201), data
    return json.loads(data)["id"]


def pick(values, q):
    """The `q` quantile (0...1) of `values`, the nearest rank."""
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]
