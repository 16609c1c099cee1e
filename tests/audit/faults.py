"""Fault injection at the HTTP layer for the collector tests: a botocore ``before-send`` handler returns an
error response instead of sending, so botocore's own retry logic (which runs around before-send) sees it."""

from __future__ import annotations

import json
import threading

from botocore.awsrequest import AWSResponse


class _Raw:
    def __init__(self, body: bytes):
        self._body = body

    def stream(self, **_):
        yield self._body


def error_response(url: str, status: int, code: str, message: str) -> AWSResponse:
    body = json.dumps({"__type": code, "message": message, "Message": message}).encode()
    headers = {"x-amzn-ErrorType": code, "Content-Type": "application/x-amz-json-1.0"}
    return AWSResponse(url, status, headers, _Raw(body))


class Recorder:
    """Records (account, IAM action) for every call a collector client makes."""

    PREFIX = {
        "sqs": "sqs",
        "lambda": "lambda",
        "monitoring": "cloudwatch",
        "ec2": "ec2",
        "ecs": "ecs",
        "pipes": "pipes",
        "cloudformation": "cloudformation",
        "s3": "s3",
        "sts": "sts",
        "organizations": "organizations",
    }

    def __init__(self):
        self.calls: set[tuple[str | None, str]] = set()
        self._lock = threading.Lock()

    def __call__(self, client, account):
        prefix = self.PREFIX[client.meta.service_model.endpoint_prefix]

        def on_call(model, **_):
            with self._lock:
                self.calls.add((account, f"{prefix}:{model.name}"))

        client.meta.events.register("before-call", on_call)


class Throttle:
    """Every ``every``-th request of the chosen services (per client) fails with a throttling error; with
    ``always`` every request of ``account`` fails (exhausted retries)."""

    def __init__(
        self, every: int = 3, services=("sqs", "lambda"), account: str | None = None, always: bool = False
    ):
        self.every, self.services, self.account, self.always = every, services, account, always
        self.injected = 0
        self.sent = 0
        self._lock = threading.Lock()

    def __call__(self, client, account):
        prefix = client.meta.service_model.endpoint_prefix
        if prefix not in self.services or (self.account and account != self.account):
            return
        counter = [0]

        def before_send(request, **_):
            with self._lock:
                counter[0] += 1
                self.sent += 1
                if self.always or counter[0] % self.every == 0:
                    self.injected += 1
                    if client.meta.service_model.protocol == "query":  # CloudFormation: XML, code Throttling
                        return query_error(request.url, 400, "Throttling", "Rate exceeded")
                    code = "TooManyRequestsException" if prefix == "lambda" else "ThrottlingException"
                    return error_response(
                        request.url, 400 if prefix != "lambda" else 429, code, "Rate exceeded"
                    )
            return None

        client.meta.events.register("before-send", before_send)


class Deny:
    """AccessDenied for every call of one account to the chosen services (SQS by default)."""

    def __init__(self, account: str, services=("sqs",)):
        self.account, self.services = account, tuple(services)

    def __call__(self, client, account):
        prefix = client.meta.service_model.endpoint_prefix
        if account != self.account or prefix not in self.services:
            return
        query = client.meta.service_model.protocol == "query"  # CloudFormation answers in XML
        client.meta.events.register(
            "before-send",
            lambda request, **_: (query_error if query else error_response)(
                request.url, 403, "AccessDenied", f"not authorized to perform {prefix}:*"
            ),
        )


def query_error(url: str, status: int, code: str, message: str) -> AWSResponse:
    """An error answer of an AWS Query service (XML)."""
    body = (
        f"<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code><Message>{message}</Message></Error>"
        "<RequestId>r</RequestId></ErrorResponse>"
    ).encode()
    return AWSResponse(url, status, {"Content-Type": "text/xml"}, _Raw(body))


def chain(*hooks):
    def hook(client, account):
        for h in hooks:
            h(client, account)

    return hook
