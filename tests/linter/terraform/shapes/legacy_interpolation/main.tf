variable "enabled" {
  default = true
}

variable "name" {
  default = "events"
}

variable "processor_timeout" {
  default = "120"
}

resource "aws_sqs_queue" "events_dlq" {
  count = "${var.enabled ? 1 : 0}"
  name  = "${var.name}-dlq"
}

resource "aws_sqs_queue" "events" {
  count                      = "${var.enabled ? 1 : 0}"
  name                       = "${var.name}"
  visibility_timeout_seconds = 60
  redrive_policy             = <<POLICY
{
  "deadLetterTargetArn": "${aws_sqs_queue.events_dlq[0].arn}",
  "maxReceiveCount": 10
}
POLICY
}

resource "aws_lambda_function" "processor" {
  function_name = "${var.name}-processor"
  role          = "arn:aws:iam::123456789012:role/processor"
  handler       = "processor.handler"
  runtime       = "python3.12"
  filename      = "processor.zip"
  timeout       = "${var.processor_timeout}"
}

resource "aws_lambda_event_source_mapping" "processor" {
  count            = "${var.enabled ? 1 : 0}"
  event_source_arn = "${aws_sqs_queue.events[0].arn}"
  function_name    = "${aws_lambda_function.processor.arn}"
  batch_size       = 1
}
