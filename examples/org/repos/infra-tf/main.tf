resource "aws_sqs_queue" "jobs_dlq" {
  name                      = "jobs-dlq"
  message_retention_seconds = 1209600
}

resource "aws_sqs_queue" "jobs" {
  name                       = "jobs"
  visibility_timeout_seconds = 300
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.jobs_dlq.arn
    maxReceiveCount     = 5
  })
}

locals {
  base = 20
}

resource "aws_sqs_queue" "reports" {
  name                       = "reports"
  visibility_timeout_seconds = max(local.base * 3, 30)
}

resource "aws_lambda_function" "reporter" {
  function_name = "reporter"
  role          = "arn:aws:iam::123456789012:role/reporter"
  handler       = "app.handler"
  runtime       = "python3.12"
  filename      = "reporter.zip"
  timeout       = 300
}

resource "aws_lambda_event_source_mapping" "reporter" {
  event_source_arn        = aws_sqs_queue.reports.arn
  function_name           = aws_lambda_function.reporter.arn
  batch_size              = 1
  function_response_types = ["ReportBatchItemFailures"]
}

resource "aws_sqs_queue" "emails_dlq" {
  name                      = "emails-dlq"
  message_retention_seconds = 345600
}

resource "aws_sqs_queue" "emails" {
  name                       = "emails"
  visibility_timeout_seconds = 20
  redrive_policy = jsonencode({
    deadLetterTargetArn = aws_sqs_queue.emails_dlq.arn
    maxReceiveCount     = 5
  })
}
