"""The JavaScript/TypeScript consumer reader (issue 25): SDK v2/v3 receive sites, sqs-consumer, nestjs-sqs.

Each sample is a small worker written the way public ones are (a polling loop, a consumer module, a NestJS
module); the assertions are the Consumer records a careful reader writes down for it.
"""

import textwrap
import time

import pytest
from visguard.linter.loaders.code import engine, javascript
from visguard.linter.loaders.code.javascript import read


def _read(text: str, path: str = "app/worker.ts"):
    return read(path, textwrap.dedent(text).lstrip("\n").encode())


def _one(text: str, path: str = "app/worker.ts"):
    r = _read(text, path)
    assert len(r.consumers) == 1, [c.id for c in r.consumers]
    return r.consumers[0], r


def _lines(c):
    return {k: v.line for k, v in c.locations.items()}


# ----------------------------------------------------------------------------------------------- SDK v3
def test_v3_receive_command_with_constants_and_arithmetic():
    c, r = _one(
        """
        import { SQSClient, ReceiveMessageCommand, DeleteMessageCommand } from "@aws-sdk/client-sqs";

        const client = new SQSClient({ region: "eu-west-1" });
        const QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/orders";
        const VISIBILITY = 5 * 60;

        export async function poll(): Promise<void> {
          const out = await client.send(
            new ReceiveMessageCommand({
              QueueUrl: QUEUE_URL,
              VisibilityTimeout: VISIBILITY,
              WaitTimeSeconds: 20,
              MaxNumberOfMessages: 10,
            }),
          );
          for (const m of out.Messages ?? []) {
            await client.send(new DeleteMessageCommand({ QueueUrl: QUEUE_URL, ReceiptHandle: m.ReceiptHandle }));
          }
        }
        """
    )
    assert (c.kind, c.platform, c.source) == ("worker", "sdk", "typescript")
    assert (c.queue_ref.kind, c.queue_ref.value) == (
        "url",
        "https://sqs.eu-west-1.amazonaws.com/123456789012/orders",
    )
    assert (c.link, c.link_ref) == ("literal", c.queue_ref.value)
    assert c.visibility_override == 300
    assert c.settings == {"wait_time": 20, "max_messages": 10}
    assert c.heartbeat is None  # no ChangeMessageVisibility in the file: not known
    assert c.location.line == 9 and c.id == "app/worker.ts:9"
    # each value is located where it is written: the constants' lines, the literals' lines
    assert _lines(c) == {"queue_ref": 4, "visibility_override": 5, "wait_time": 12, "max_messages": 13}
    assert r.notes == []


def test_v3_heartbeat_in_the_same_file_and_release_is_not_one():
    heartbeat = """
        const { SQSClient, ReceiveMessageCommand, ChangeMessageVisibilityCommand } = require("@aws-sdk/client-sqs");
        const sqs = new SQSClient({});
        const input = { QueueUrl: process.env.JOBS_QUEUE_URL, VisibilityTimeout: 30 };

        async function work(message) {
          const timer = setInterval(() => {
            sqs.send(new ChangeMessageVisibilityCommand({
              QueueUrl: process.env.JOBS_QUEUE_URL,
              ReceiptHandle: message.ReceiptHandle,
              VisibilityTimeout: 60,
            }));
          }, 20_000);
          try { await handle(message); } finally { clearInterval(timer); }
        }

        async function loop() {
          const { Messages = [] } = await sqs.send(new ReceiveMessageCommand(input));
          await Promise.all(Messages.map(work));
        }
        """
    c, _ = _one(heartbeat, "worker.js")
    assert (c.source, c.queue_ref.kind, c.queue_ref.value) == ("javascript", "env", "JOBS_QUEUE_URL")
    assert (c.link, c.link_ref) == ("env", "JOBS_QUEUE_URL")
    assert c.visibility_override == 30 and _lines(c)["visibility_override"] == 3
    assert c.heartbeat is True and _lines(c)["heartbeat"] == 7
    assert c.location.line == 17

    # the same loop whose only ChangeMessageVisibility puts a failed message back (VisibilityTimeout 0)
    release = heartbeat.replace("VisibilityTimeout: 60", "VisibilityTimeout: 0")
    c, _ = _one(release, "worker.js")
    assert c.heartbeat is None and "heartbeat" not in c.locations


def test_v3_batch_change_visibility_is_a_heartbeat():
    c, _ = _one(
        """
        import { ReceiveMessageCommand, ChangeMessageVisibilityBatchCommand } from "@aws-sdk/client-sqs";
        const url = process.env["QUEUE_URL"];
        export const receive = () => client.send(new ReceiveMessageCommand({ QueueUrl: url }));
        export const extend = (msgs) =>
          client.send(new ChangeMessageVisibilityBatchCommand({
            QueueUrl: url,
            Entries: msgs.map((m, i) => ({ Id: `${i}`, ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 120 })),
          }));
        """
    )
    assert c.queue_ref.value == "QUEUE_URL" and c.queue_ref.kind == "env"
    assert c.visibility_override is None and c.heartbeat is True


def test_v3_shorthand_queue_url_and_env_with_default():
    c, r = _one(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        const QueueUrl = process.env.INGEST_QUEUE_URL ?? "http://localhost:4566/000000000000/ingest";
        const VisibilityTimeout = Number(process.env.INGEST_VISIBILITY ?? 45);
        export const command = new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout, WaitTimeSeconds: 10 });
        """
    )
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "INGEST_QUEUE_URL")
    assert c.visibility_override == 45 and _lines(c)["visibility_override"] == 3  # the default's place
    assert c.settings == {"wait_time": 10}
    assert r.notes == []


def test_template_literal_url_of_constants_and_a_url_built_on_an_endpoint():
    c, _ = _one(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        const ACCOUNT = "123456789012";
        const REGION = "us-east-1";
        const url = `https://sqs.${REGION}.amazonaws.com/${ACCOUNT}/payments.fifo`;
        new ReceiveMessageCommand({ QueueUrl: url, VisibilityTimeout: 90 });
        """
    )
    assert (c.queue_ref.kind, c.queue_ref.value) == (
        "url",
        "https://sqs.us-east-1.amazonaws.com/123456789012/payments.fifo",
    )
    # the endpoint comes from the environment: the queue is still named by the literal path after it
    c, _ = _one(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        const endpoint = process.env.SQS_ENDPOINT;
        new ReceiveMessageCommand({ QueueUrl: `${endpoint}/000000000000/thumbnails`, VisibilityTimeout: 90 });
        """
    )
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "thumbnails")
    assert c.queue_ref.location.line == 3


def test_queue_looked_up_by_name_with_get_queue_url():
    c, _ = _one(
        """
        import { SQSClient, GetQueueUrlCommand, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        const sqs = new SQSClient({});
        export async function main() {
          const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: "emails" }));
          while (true) {
            await sqs.send(new ReceiveMessageCommand({ QueueUrl, MaxNumberOfMessages: 5 }));
          }
        }
        """
    )
    assert (c.queue_ref.kind, c.queue_ref.value, c.queue_ref.location.line) == ("name", "emails", 4)
    assert c.settings == {"max_messages": 5}


def test_computed_values_are_none_and_noted():
    c, r = _one(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        import { settings } from "./settings";
        export function receiver(queueUrl: string) {
          return new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            VisibilityTimeout: settings.visibility(),
            WaitTimeSeconds: Number(process.env.WAIT),
          });
        }
        """
    )
    assert c.queue_ref is None and c.visibility_override is None and c.settings == {}
    by_line = {n.location.line: n.message for n in r.notes}
    assert set(by_line) == {5, 6, 7}
    assert "QueueUrl is computed" in by_line[5] and "app/worker.ts:4" in by_line[5]
    assert "VisibilityTimeout is computed" in by_line[6]
    assert "WaitTimeSeconds comes from the environment variable WAIT" in by_line[7]
    assert all(n.address == c.id for n in r.notes)


def test_a_parameter_shadows_a_module_constant():
    c, _ = _one(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        const VT = 30;
        export const receive = (VT) => new ReceiveMessageCommand({ QueueUrl: "orders", VisibilityTimeout: VT });
        """
    )
    assert (c.queue_ref.kind, c.queue_ref.value) == ("name", "orders")
    assert c.visibility_override is None


def test_reassigned_let_is_not_read_but_a_nearer_const_is():
    r = _read(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        let vt = 30;
        if (process.env.SLOW) vt = 600;
        const a = new ReceiveMessageCommand({ QueueUrl: "a", VisibilityTimeout: vt });
        function b() {
          const vt2 = 120;
          const params = { QueueUrl: "b", VisibilityTimeout: vt2 };
          return new ReceiveMessageCommand(params);
        }
        function c() {
          const params = { QueueUrl: "c", VisibilityTimeout: 15 };
          return new ReceiveMessageCommand(params);
        }
        """
    )
    got = {c.queue_ref.value: c.visibility_override for c in r.consumers}
    assert got == {"a": None, "b": 120, "c": 15}


def test_class_fields_and_spread_parameters():
    c, r = _one(
        """
        import { SQSClient, ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        const base = { WaitTimeSeconds: 20, MaxNumberOfMessages: 10 };
        export class Poller {
          private readonly queueUrl = process.env.REPORTS_QUEUE_URL!;
          private readonly client = new SQSClient({});
          async poll() {
            return this.client.send(new ReceiveMessageCommand({ ...base, QueueUrl: this.queueUrl, VisibilityTimeout: 900 }));
          }
        }
        """
    )
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "REPORTS_QUEUE_URL")
    assert c.visibility_override == 900 and c.settings == {"wait_time": 20, "max_messages": 10}
    assert _lines(c)["wait_time"] == 2 and _lines(c)["queue_ref"] == 4


# ----------------------------------------------------------------------------------------------- SDK v2
def test_v2_receive_message_with_params_object_and_heartbeat():
    c, r = _one(
        """
        const AWS = require("aws-sdk");
        const sqs = new AWS.SQS({ apiVersion: "2012-11-05" });
        const queueURL = "https://sqs.us-west-2.amazonaws.com/123456789012/video-jobs";

        const params = {
          AttributeNames: ["SentTimestamp"],
          MaxNumberOfMessages: 1,
          QueueUrl: queueURL,
          VisibilityTimeout: 20,
          WaitTimeSeconds: 0,
        };

        function receive() {
          sqs.receiveMessage(params, (err, data) => {
            if (err || !data.Messages) return;
            sqs.changeMessageVisibility({ QueueUrl: queueURL, ReceiptHandle: data.Messages[0].ReceiptHandle,
              VisibilityTimeout: 600 }, () => transcode(data.Messages[0]));
          });
        }
        setInterval(receive, 1000);
        """,
        "src/consumer.js",
    )
    assert (c.platform, c.source) == ("sdk", "javascript")
    assert (c.queue_ref.kind, c.queue_ref.value) == (
        "url",
        "https://sqs.us-west-2.amazonaws.com/123456789012/video-jobs",
    )
    assert c.visibility_override == 20 and c.settings == {"wait_time": 0, "max_messages": 1}
    assert c.heartbeat is True and _lines(c)["heartbeat"] == 16
    assert c.location.line == 14
    assert _lines(c)["visibility_override"] == 9 and _lines(c)["queue_ref"] == 3


def test_v2_promise_with_env_or_default():
    c, _ = _one(
        """
        import SQS from "aws-sdk/clients/sqs";
        const sqs = new SQS();
        export async function next() {
          const res = await sqs
            .receiveMessage({
              QueueUrl: process.env.QUEUE_URL || "https://sqs.eu-central-1.amazonaws.com/123456789012/dev-events",
              VisibilityTimeout: parseInt(process.env.VISIBILITY || "120", 10),
            })
            .promise();
          return res.Messages;
        }
        """,
        "lib/next.mjs",
    )
    assert (c.queue_ref.kind, c.queue_ref.value, c.source) == ("env", "QUEUE_URL", "javascript")
    assert c.visibility_override == 120
    for expr, value in (("+process.env.VT || 30", 30), ("Number.parseInt(process.env.VT ?? '90')", 90)):
        c, _ = _one(f"sqs.receiveMessage({{ QueueUrl: 'q', VisibilityTimeout: {expr} }}).promise();", "a.js")
        assert c.visibility_override == value


def test_v2_wrapper_without_readable_parameters_is_a_consumer_with_a_note():
    c, r = _one(
        """
        import { SQS } from "aws-sdk";
        export class Queue {
          constructor(private sqs: SQS) {}
          receive(params: SQS.ReceiveMessageRequest) {
            return this.sqs.receiveMessage(params).promise();
          }
        }
        """
    )
    assert c.queue_ref is None and c.visibility_override is None
    assert len(r.notes) == 1 and "cannot read" in r.notes[0].message and r.notes[0].location.line == 5


def test_receive_message_of_another_library_is_not_an_sqs_consumer():
    r = _read(
        """
        import { QueueClient } from "@azure/storage-queue";
        const q = new QueueClient(conn, "tasks");
        export const next = () => q.receiveMessage({ visibilityTimeout: 30 });
        """
    )
    assert r.consumers == []


# ----------------------------------------------------------------------------------------------- sqs-consumer
def test_sqs_consumer_create_reads_every_option_in_its_units():
    c, r = _one(
        """
        import { Consumer } from "sqs-consumer";
        import { SQSClient } from "@aws-sdk/client-sqs";

        const app = Consumer.create({
          queueUrl: process.env.RENDER_QUEUE_URL,
          visibilityTimeout: 180,
          heartbeatInterval: 60,
          handleMessageTimeout: 10 * 60 * 1000,
          batchSize: 5,
          waitTimeSeconds: 10,
          terminateVisibilityTimeout: true,
          handleMessage: async (message) => render(message),
          sqs: new SQSClient({ region: "eu-west-1" }),
        });
        app.on("error", (err) => console.error(err.message));
        app.start();
        """
    )
    assert (c.platform, c.source, c.location.line) == ("sqs-consumer", "typescript", 4)
    assert (c.queue_ref.kind, c.queue_ref.value) == ("env", "RENDER_QUEUE_URL")
    assert c.visibility_override == 180
    assert c.heartbeat is True and c.heartbeat_interval == 60
    assert c.work_timeout == 600  # milliseconds in the code, seconds in the model
    assert c.settings == {
        "max_messages": 5,
        "wait_time": 10,
        "terminate_visibility_timeout": True,
        "handler": "handleMessage",  # an arrow's expression: its value, taken as the message (VG076)
        "handler_returns": "a value",
    }
    assert _lines(c) == {
        "queue_ref": 5,
        "visibility_override": 6,
        "heartbeat_interval": 7,
        "heartbeat": 7,
        "work_timeout": 8,
        "max_messages": 9,
        "wait_time": 10,
        "terminate_visibility_timeout": 11,
        "handler": 12,
    }
    assert r.notes == []


def test_sqs_consumer_required_without_heartbeat():
    c, _ = _one(
        """
        const { Consumer: SqsConsumer } = require("sqs-consumer");
        const QUEUE = "https://sqs.ap-southeast-2.amazonaws.com/123456789012/pdf-render";
        const consumer = new SqsConsumer({
          queueUrl: QUEUE,
          visibilityTimeout: 30,
          handleMessageTimeout: 45000,
          handleMessage: async (m) => { await renderPdf(JSON.parse(m.Body)); },
        });
        consumer.start();
        """,
        "index.cjs",
    )
    assert (c.platform, c.source) == ("sqs-consumer", "javascript")
    assert c.queue_ref.value.endswith("/pdf-render") and c.visibility_override == 30
    assert c.work_timeout == 45 and c.heartbeat is False and c.heartbeat_interval is None


def test_sqs_consumer_namespace_and_default_imports():
    r = _read(
        """
        import * as sqsc from "@rxfork/sqs-consumer";
        import LegacyConsumer from "sqs-consumer";
        export const a = sqsc.Consumer.create({ queueUrl: "https://sqs.us-east-1.amazonaws.com/123456789012/a" });
        export const b = LegacyConsumer.create({ queueUrl: "b", visibilityTimeout: 60 });
        """
    )
    assert [(c.queue_ref.value, c.visibility_override) for c in r.consumers] == [
        ("https://sqs.us-east-1.amazonaws.com/123456789012/a", None),
        ("b", 60),
    ]


def test_a_consumer_class_of_another_library_is_not_read():
    r = _read(
        """
        import { Kafka, Consumer } from "kafkajs";
        export const c: Consumer = new Kafka({ brokers: [] }).consumer({ groupId: "g" });
        export const d = Consumer.create({ queueUrl: "not-sqs" });
        """
    )
    assert r.consumers == []


def test_consistent_sqs_consumer_reads_cleanly():
    c, r = _one(
        """
        import { Consumer } from "sqs-consumer";
        const TEN_MINUTES = 600;
        export const consumer = Consumer.create({
          queueUrl: process.env.EXPORTS_QUEUE_URL ?? "https://sqs.eu-west-1.amazonaws.com/123456789012/exports",
          visibilityTimeout: TEN_MINUTES,
          heartbeatInterval: TEN_MINUTES / 4,
          handleMessageTimeout: 9 * 60_000,
          handleMessage: exportOne,
        });
        """,
        "src/exports/consumer.mts",
    )
    assert (c.queue_ref.kind, c.queue_ref.value, c.source) == ("env", "EXPORTS_QUEUE_URL", "typescript")
    assert (c.visibility_override, c.heartbeat_interval, c.work_timeout, c.heartbeat) == (600, 150, 540, True)
    assert r.notes == []


# ----------------------------------------------------------------------------------------------- nestjs-sqs
def test_nestjs_register_one_consumer_per_entry_and_its_handler():
    r = _read(
        """
        import { Injectable, Module } from "@nestjs/common";
        import { SqsMessageHandler, SqsModule } from "@ssut/nestjs-sqs";
        import type { Message } from "@aws-sdk/client-sqs";

        @Injectable()
        export class InvoiceHandler {
          @SqsMessageHandler("invoices", false)
          async handle(message: Message) {}
        }

        @Module({
          imports: [
            SqsModule.register({
              consumers: [
                {
                  name: "invoices",
                  queueUrl: process.env.INVOICES_QUEUE_URL ?? "http://localhost:4566/000000000000/invoices",
                  region: "us-east-1",
                  visibilityTimeout: 120,
                  heartbeatInterval: 30,
                },
                { name: "audit", queueUrl: "https://sqs.us-east-1.amazonaws.com/123456789012/audit", batchSize: 10 },
              ],
              producers: [],
            }),
          ],
          providers: [InvoiceHandler],
        })
        export class QueueModule {}
        """,
        "src/queue.module.ts",
    )
    invoices, audit = r.consumers
    assert invoices.platform == audit.platform == "sqs-consumer"
    assert (invoices.queue_ref.kind, invoices.queue_ref.value) == ("env", "INVOICES_QUEUE_URL")
    assert (invoices.visibility_override, invoices.heartbeat_interval, invoices.heartbeat) == (120, 30, True)
    assert invoices.location.line == 15 and _lines(invoices)["handler"] == 7
    assert audit.queue_ref.value.endswith("/audit") and audit.settings == {"max_messages": 10}
    assert audit.heartbeat is False and audit.location.line == 22 and "handler" not in audit.locations
    assert r.notes == []


def test_nestjs_register_async_with_a_literal_factory():
    r = _read(
        """
        import { Module } from "@nestjs/common";
        import { ConfigModule, ConfigService } from "@nestjs/config";
        import { SqsModule } from "@ssut/nestjs-sqs";

        @Module({
          imports: [
            SqsModule.registerAsync({
              imports: [ConfigModule],
              inject: [ConfigService],
              useFactory: (config: ConfigService) => {
                return {
                  consumers: [
                    {
                      name: "notifications",
                      queueUrl: config.get<string>("NOTIFICATIONS_QUEUE_URL"),
                      visibilityTimeout: 60,
                    },
                  ],
                };
              },
            }),
          ],
        })
        export class AppModule {}
        """,
        "src/app.module.ts",
    )
    (c,) = r.consumers
    assert (c.queue_ref.kind, c.queue_ref.value, c.visibility_override) == (
        "env",
        "NOTIFICATIONS_QUEUE_URL",
        60,
    )


def test_nestjs_consumers_built_elsewhere_are_noted():
    r = _read(
        """
        import { SqsModule } from "@ssut/nestjs-sqs";
        import { consumers } from "./consumers";
        export const sqs = SqsModule.register({ consumers });
        """
    )
    assert r.consumers == []
    assert len(r.notes) == 1 and r.notes[0].location.line == 3 and "cannot read" in r.notes[0].message


# ----------------------------------------------------------------------------------------------- files
@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("a.js", "javascript"),
        ("a.cjs", "javascript"),
        ("a.mjs", "javascript"),
        ("a.jsx", "javascript"),
        ("a.ts", "typescript"),
        ("a.mts", "typescript"),
        ("a.cts", "typescript"),
        ("a.tsx", "typescript"),
    ],
)
def test_every_extension_is_read(path, source):
    assert path[path.rindex(".") :] in javascript.EXTENSIONS
    c, _ = _one(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        export const cmd = new ReceiveMessageCommand({ QueueUrl: "jobs", VisibilityTimeout: 40 });
        """,
        path,
    )
    assert (c.source, c.queue_ref.value, c.visibility_override) == (source, "jobs", 40)


def test_tsx_component_with_generics_and_jsx():
    c, _ = _one(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        export function Panel<T,>({ items }: { items: T[] }) {
          const cmd = new ReceiveMessageCommand({ QueueUrl: "ui-events", VisibilityTimeout: 10 });
          return <ul>{items.map((i) => <li key={String(i)}>{String(i)}</li>)}</ul>;
        }
        """,
        "web/panel.tsx",
    )
    assert (c.queue_ref.value, c.visibility_override) == ("ui-events", 10)


def test_a_file_with_syntax_errors_is_read_as_far_as_it_parses():
    r = _read(
        """
        import { ReceiveMessageCommand } from "@aws-sdk/client-sqs";
        export const cmd = new ReceiveMessageCommand({ QueueUrl: "orders", VisibilityTimeout: 75 });
        function broken( {
          if (x {{{ return ;
        """
    )
    (c,) = r.consumers
    assert (c.queue_ref.value, c.visibility_override) == ("orders", 75)
    assert any("syntax errors" in n.message for n in r.notes)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x00\xff\xfe ReceiveMessageCommand \x00\x81" * 200,
        bytes(range(256)) * 50 + b"receiveMessage(",
        b"new ReceiveMessageCommand(" + b"[" * 20_000 + b"]" * 20_000 + b")",
        b"sqs.receiveMessage(" + b"(" * 50_000,
        b"const a = b;\n" * 5 + b"new ReceiveMessageCommand({QueueUrl: a, VisibilityTimeout: a})",  # a cycle
        b"import { Consumer } from 'sqs-consumer'; Consumer.create("
        + b"{a: " * 5_000
        + b"1"
        + b"}" * 5_000
        + b")",
        "const q = '\udcff';".encode("utf-8", "surrogatepass") + b"new ReceiveMessageCommand({QueueUrl: q})",
    ],
)
def test_garbage_deep_nesting_and_binary_never_raise(data):
    r = read("bad.ts", data)
    for c in r.consumers:
        assert c.kind == "worker" and c.location.file == "bad.ts"
    assert not any("not read completely" in n.message for n in r.notes)  # no reader fault was swallowed


def test_nesting_beyond_the_bound_leaves_names_unread_and_keeps_the_site():
    site = b"new ReceiveMessageCommand({QueueUrl: q, VisibilityTimeout: 30});"
    shallow = b"const q = 'jobs';" + b"function f(a){" * 50 + site + b"}" * 50
    deep = b"const q = 'jobs';" + b"function f(a){" * 3000 + site + b"}" * 3000
    (c,) = read("nested.js", shallow).consumers
    assert (c.queue_ref.value, c.visibility_override) == ("jobs", 30)
    r = read("nested.js", deep)
    (c,) = r.consumers
    assert c.queue_ref is None and c.visibility_override == 30
    assert not any("not read completely" in n.message for n in r.notes)


def test_a_constant_cycle_is_unresolved_not_a_hang():
    r = read(
        "cycle.js",
        b"const a = b;\nconst b = a;\nnew ReceiveMessageCommand({ QueueUrl: a, VisibilityTimeout: b });\n",
    )
    (c,) = r.consumers
    assert c.queue_ref is None and c.visibility_override is None
    assert len(r.notes) == 2


def test_files_without_a_receive_are_not_parsed(monkeypatch):
    def boom(*_a):
        raise AssertionError("parsed")

    monkeypatch.setattr(javascript, "parse", boom)
    r = read("util.ts", b"export const add = (a: number, b: number) => a + b;\n")
    assert (r.consumers, r.notes) == ([], [])


def test_oversized_file_is_one_note(monkeypatch):
    monkeypatch.setattr(javascript, "MAX_BYTES", 1000)
    r = read("bundle.js", b"new ReceiveMessageCommand({QueueUrl: 'a'});" + b" " * 2000)
    assert r.consumers == [] and len(r.notes) == 1 and "bundle.js" in r.notes[0].message


def test_two_receives_on_one_minified_line_have_distinct_ids():
    r = read(
        "min.js",
        b'import{ReceiveMessageCommand as R}from"@aws-sdk/client-sqs";'
        b'new ReceiveMessageCommand({QueueUrl:"a"});new ReceiveMessageCommand({QueueUrl:"b"});',
    )
    assert [c.queue_ref.value for c in r.consumers] == ["a", "b"]
    assert len({c.id for c in r.consumers}) == 2


# ----------------------------------------------------------------------------------------------- the engine (issue 34)
_SITES = {
    "v3": 'import {{ ReceiveMessageCommand }} from "@aws-sdk/client-sqs";\n'
    'new ReceiveMessageCommand({{ QueueUrl: "orders", VisibilityTimeout: {v} }});\n',
    "v2": 'const AWS = require("aws-sdk");\n'
    'new AWS.SQS().receiveMessage({{ QueueUrl: "orders", VisibilityTimeout: {v} }});\n',
    "sqs-consumer": 'import {{ Consumer }} from "sqs-consumer";\n'
    'Consumer.create({{ queueUrl: "orders", visibilityTimeout: {v} }});\n',
}
_PATHS = ["w.js", "w.ts", "w.tsx"]


@pytest.mark.parametrize("site", sorted(_SITES))
@pytest.mark.parametrize("path", _PATHS)
@pytest.mark.parametrize(
    "literal, named",
    [
        ("100000000000000000000", "100000000000000000000"),  # 21 digits
        ("-100000000000000000000", "100000000000000000000"),
        ("1e20", "1e20"),
        ("1e10 * 1e10", "1e10 * 1e10"),  # arithmetic beyond it
        ("VT", "100000000000000000000"),  # a constant of the file
    ],
)
def test_a_number_beyond_any_setting_is_not_read_and_a_note_names_it(site, path, literal, named):
    src = "const VT = 100000000000000000000;\n" + _SITES[site].format(v=literal)
    r = read(path, src.encode())
    (c,) = r.consumers
    assert c.visibility_override is None and "visibility_override" not in c.locations
    assert (c.id, "visibility_override") not in r.places
    (note,) = [n for n in r.notes if "isibilityTimeout" in n.message]
    assert named in note.message and "not read" in note.message and note.address == c.id


@pytest.mark.parametrize("site", sorted(_SITES))
@pytest.mark.parametrize("path", _PATHS)
@pytest.mark.parametrize(
    "literal, value", [("50000", 50000), ("-5", -5), ("999999999999999", 999999999999999)]
)
def test_a_number_outside_the_api_range_is_read_for_the_rules_to_judge(site, path, literal, value):
    r = read(path, _SITES[site].format(v=literal).encode())
    (c,) = r.consumers
    assert c.visibility_override == value and r.notes == []


_CONSUMER = 'const {{ Consumer }} = require("sqs-consumer");\nconst VT = 45;\nConsumer.create({{ queueUrl: "q", {o} }});\n'
_RECEIVE = 'const AWS = require("aws-sdk");\nconst VT = 45;\nsqs.receiveMessage({{ QueueUrl: "q", {o} }});\n'


@pytest.mark.parametrize("path", _PATHS)
@pytest.mark.parametrize(
    "template, option, field, reason, name, scale, digits",
    [
        (_CONSUMER, "visibilityTimeout: 30", "visibility_override", None, None, 1.0, "30"),
        (_CONSUMER, 'visibilityTimeout: "30"', "visibility_override", None, None, 1.0, "30"),
        (_CONSUMER, "heartbeatInterval: 10", "heartbeat_interval", None, None, 1.0, "10"),
        (_CONSUMER, "handleMessageTimeout: 60000", "work_timeout", None, None, 0.001, "60000"),
        (_CONSUMER, "batchSize: 5", "max_messages", None, None, 1.0, "5"),
        (_CONSUMER, "waitTimeSeconds: 20", "wait_time", None, None, 1.0, "20"),
        (_CONSUMER, "terminateVisibilityTimeout: 10", "terminate_visibility_timeout", None, None, 1.0, "10"),
        (_CONSUMER, "visibilityTimeout: VT", "visibility_override", "binding", "VT", 1.0, "45"),
        (_CONSUMER, "handleMessageTimeout: VT", "work_timeout", "binding", "VT", 0.001, "45"),
        (
            _CONSUMER,
            "visibilityTimeout: process.env.VIS ?? 60",
            "visibility_override",
            "env",
            "VIS",
            1.0,
            "60",
        ),
        (
            _CONSUMER,
            "visibilityTimeout: Number(process.env.VIS || 60)",
            "visibility_override",
            "env",
            "VIS",
            1,
            "60",
        ),
        (_CONSUMER, "visibilityTimeout: 5 * 60", "visibility_override", "computed", None, 1.0, "5 * 60"),
        (_CONSUMER, "visibilityTimeout: -30", "visibility_override", "computed", None, 1.0, "-30"),
        (_CONSUMER, "visibilityTimeout: 0x1E", "visibility_override", "written", None, 1.0, "0x1E"),
        (_RECEIVE, "VisibilityTimeout: 30", "visibility_override", None, None, 1.0, "30"),
        (_RECEIVE, "WaitTimeSeconds: 20", "wait_time", None, None, 1.0, "20"),
        (_RECEIVE, "MaxNumberOfMessages: 10", "max_messages", None, None, 1.0, "10"),
        (_RECEIVE, "VisibilityTimeout: VT", "visibility_override", "binding", "VT", 1.0, "45"),
        (
            _RECEIVE,
            "VisibilityTimeout: process.env.VIS ?? 60",
            "visibility_override",
            "env",
            "VIS",
            1.0,
            "60",
        ),
    ],
)
def test_every_number_set_records_its_place(path, template, option, field, reason, name, scale, digits):
    data = template.format(o=option).encode()
    r = read(path, data)
    (c,) = r.consumers
    p = r.places[(c.id, field)]
    assert (p.reason, p.name, p.scale) == (reason, name, scale)
    assert data[p.start : p.end].decode() == digits
    if reason == "binding":
        assert p.line == 2
    assert {f for (_, f) in r.places} == {f for f in c.locations if f not in ("queue_ref", "heartbeat")}


@pytest.mark.parametrize("lang", [javascript.JAVASCRIPT, javascript.TYPESCRIPT, javascript.TSX])
def test_one_query_finds_the_sites_in_every_grammar(lang):
    data = (
        b'import { Consumer } from "sqs-consumer";\nconst VT = 30 as number;\nlet n = 1; n += 1;\n'
        b'new ReceiveMessageCommand({ QueueUrl: "a" });\nsqs.receiveMessage({});\nConsumer.create({});\n'
        b"new Consumer({});\nnew ChangeMessageVisibilityCommand({});\nsqs.changeMessageVisibility({});\n"
        b"SqsModule.register({});\nSqsModule.registerAsync({});\nclass H { @SqsMessageHandler('q') h() {} }\n"
    )
    f = engine.File(lang, data)
    assert [p for _, p, _, _ in f.sites()] == [
        "sdk",
        "sdk-call",
        "sqs-consumer",
        "sqs-consumer",
        "nest-register",
        "nest-registerAsync",
    ]
    assert [
        len(f.captures(n)) for n in ("heartbeat", "import.name", "declarator", "assigned", "handler")
    ] == [
        2,
        1,
        2,
        1,
        1,
    ]


def _fix(tmp_path, name, source, field, value):
    from visguard.linter.changes import set_consumer
    from visguard.linter.fixes.code import CodeAdapter
    from visguard.linter.fixes.core import plan_text
    from visguard.linter.model import Finding, Severity

    path = tmp_path / name
    path.write_bytes(source.encode())
    (c,) = read(str(path), source.encode()).consumers
    change = set_consumer(c, field, value)
    f = Finding("VGX", Severity.WARNING, "m", "q", change.location, consumer=c.id, changes=(change,))
    return plan_text(CodeAdapter(str(path)), str(path), source, [f])


_CLASS = """const { Consumer } = require("sqs-consumer");
const { ENV_VT = 45 } = process.env;
const cfg = { ms: 9000 };
class W {
  visibility = 90;
  constructor() { this.timeout = 120000; }
  start() { return Consumer.create({ queueUrl: "q", OPTION }); }
}
"""


@pytest.mark.parametrize("path", _PATHS)
@pytest.mark.parametrize(
    "option, field, value, edit, refusal",
    [
        # handleMessageTimeout's milliseconds wherever the number is written (the old path lost the unit)
        ("handleMessageTimeout: this.timeout", "work_timeout", 90, ("120000", "90000"), None),
        ("handleMessageTimeout: cfg.ms", "work_timeout", 90, ("9000", "90000"), None),
        ("handleMessageTimeout: 60000", "work_timeout", 90, ("60000", "90000"), None),
        # a class field is a name other code may use; a destructured default is the environment's
        (
            "visibilityTimeout: this.visibility",
            "visibility_override",
            60,
            None,
            "visibility, defined at line 5",
        ),
        ("visibilityTimeout: ENV_VT", "visibility_override", 60, None, "environment variable ENV_VT"),
    ],
)
def test_the_fixer_writes_where_the_place_says(tmp_path, path, option, field, value, edit, refusal):
    source = _CLASS.replace("OPTION", option)
    ff = _fix(tmp_path, path, source, field, value)
    if edit is not None:
        assert ff.skipped == [] and source.count(edit[0]) == 1
        assert ff.after == source.replace(edit[0], edit[1])
    else:
        assert ff.after == source and ff.applied == []
        ((_, why),) = ff.skipped
        assert refusal in why


@pytest.mark.parametrize(
    "head, part",
    [
        (
            b"const AWS = require('aws-sdk');\nsqs.receiveMessage({ QueueUrl: 'q' });\nsqs.receiveMessage(",
            b"(",
        ),
        (b"new ReceiveMessageCommand({ QueueUrl: 'q' });\nnew ReceiveMessageCommand(", b"["),
        (b"function f() { new ReceiveMessageCommand({ QueueUrl: 'q' }); sqs.receiveMessage(", b"("),
    ],
)
def test_one_error_of_many_parts_is_read_around_not_a_hang(head, part):
    # tree-sitter recovers 150,000 unclosed brackets as one error node of 150,000 parts; its query cursor is
    # quadratic in them (minutes): the engine queries such a node part by part (well under 1 s here)
    start = time.monotonic()
    r = read("bad.ts", head + part * 150_000)
    assert time.monotonic() - start < 20  # a guard against a hang, not a speed goal
    (c,) = r.consumers
    assert c.queue_ref.value == "q"
    assert any("syntax errors" in n.message for n in r.notes)
